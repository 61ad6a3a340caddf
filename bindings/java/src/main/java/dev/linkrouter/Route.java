package dev.linkrouter;

/** A pattern and its target, for {@link Router#addMany}. */
public record Route(String pattern, String target) {
}
