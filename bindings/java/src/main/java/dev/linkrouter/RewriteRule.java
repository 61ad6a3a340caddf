package dev.linkrouter;

/**
 * A rewrite rule for {@link Router#addRewrites}: {@code match} is a PCRE2 regex (UTF mode), {@code target} a
 * template ({@code $1}, {@code ${name}}, {@code $$1} encoded, {@code $#1} decoded, {@code $host}, ...).
 */
public record RewriteRule(String match, String target) {
}
