package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Rewrite rules (SPEC section 5): FFRouter's examples, ordering, replacement, removal, errors and limits. */
class RewriteTest {
    static final RewriteRule AMAZON = new RewriteRule("(?:https://)?www.amazon.com/search/(.*)",
        "protocol://page/routerDetails?product=$1");
    static final RewriteRule TAOBAO = new RewriteRule("(?:https://)?www.taobao.com/search/(.*)",
        "protocol://page/routerDetails?product=$$1");
    static final RewriteRule JD = new RewriteRule("(?:https://)?www.jd.com/search/(.*)",
        "protocol://page/routerDetails?product=$#1");
    static final RewriteRule BAIDU = new RewriteRule("(?:https://)?www.baidu.com/wd/(\\d+)",
        "protocol://page/routerDetails?id=$1");

    private static RewriteRule rule(String match, String target) {
        return new RewriteRule(match, target);
    }

    @TestFactory
    List<DynamicTest> rewriteTable() {
        List<RewriteRule> all = List.of(AMAZON, TAOBAO, JD, BAIDU);
        // (name, rules, url, expected or null for no rule)
        Object[][] rows = {
            {"amazon", List.of(AMAZON), "https://www.amazon.com/search/Atomic_bomb",
                "protocol://page/routerDetails?product=Atomic_bomb"},
            {"amazon without scheme", List.of(AMAZON), "www.amazon.com/search/Atomic_bomb",
                "protocol://page/routerDetails?product=Atomic_bomb"},
            {"taobao $$1", List.of(TAOBAO), "https://www.taobao.com/search/原子弹",
                "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9"},
            {"jd $#1", List.of(JD), "https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9",
                "protocol://page/routerDetails?product=原子弹"},
            {"baidu digits", List.of(BAIDU), "https://www.baidu.com/wd/66666",
                "protocol://page/routerDetails?id=66666"},
            {"baidu no digits", List.of(BAIDU), "https://www.baidu.com/wd/abc", null},
            {"demo set: none", all, "https://www.example.com/search/x", null},
            {"${name}", List.of(rule("/u/(?<id>\\d+)", "app://user/${id}")), "https://x.com/u/42", "app://user/42"},
            {"$host", List.of(rule("x", "$host")), "https://user:pw@Example.COM:8080/x?q#f", "Example.COM"},
            {"$$query", List.of(rule("x", "app://?u=$$query")), "https://h/x?a=1&b=2", "app://?u=a%3D1%26b%3D2"},
            {"\\$ is a dollar", List.of(rule("(x)", "\\$1=$1")), "x", "$1=x"},
            {"first in order wins", List.of(rule("a", "first"), rule("ab", "second")), "xab", "first"},
            {"same match replaces target", List.of(rule("a", "one"), rule("b", "two"), rule("a", "three")), "b a",
                "three"},
            {"anchored regex", List.of(rule("^b", "hit")), "ab", null},
            {"empty target", List.of(rule("x", "")), "x", ""},
        };
        List<DynamicTest> tests = new ArrayList<>();
        for (Object[] row : rows) {
            tests.add(DynamicTest.dynamicTest((String) row[0], () -> {
                @SuppressWarnings("unchecked")
                List<RewriteRule> rules = (List<RewriteRule>) row[1];
                try (Router together = new Router(); Router oneByOne = new Router()) {
                    together.addRewrites(rules);
                    rules.forEach(r -> oneByOne.addRewrite(r.match(), r.target()));
                    assertEquals(Optional.ofNullable(row[3]), together.rewrite((String) row[2]));
                    assertEquals(Optional.ofNullable(row[3]), oneByOne.rewrite((String) row[2]));
                }
            }));
        }
        return tests;
    }

    @Test
    void resolveRewritesFirst() {
        try (Router r = new Router()) {
            r.add("protocol://page/routerDetails", "Details");
            r.addRewrites(List.of(AMAZON, TAOBAO, JD));
            String[][] rows = {
                {"https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb",
                    "Atomic_bomb"},
                {"https://www.taobao.com/search/原子弹",
                    "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9", "原子弹"},
                {"https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹",
                    "原子弹"},
            };
            for (String[] row : rows) {
                Match m = r.resolve(row[0]).orElseThrow();
                assertEquals(List.of(row[0], row[1], row[2], "Details", "page", "protocol"),
                    List.of(m.url(), m.rewritten(), m.params().get("product"), m.target(), m.host(), m.scheme()));
                assertTrue(r.canRoute(row[0]));
            }
            assertEquals(Optional.empty(), r.resolve("https://www.example.com/"));
        }
    }

    @Test
    void removeAndClear() {
        try (Router r = new Router()) {
            r.addRewrites(List.of(rule("a", "1"), rule("b", "2")));
            r.removeRewrite("a");
            assertEquals(Optional.of("2"), r.rewrite("ab"));
            assertEquals(LinkRouterException.ENOTFOUND,
                assertThrows(LinkRouterException.class, () -> r.removeRewrite("a")).code());
            r.clearRewrites();
            assertEquals(Optional.empty(), r.rewrite("ab"));
        }
    }

    @Test
    void errors() {
        // (rules, code, index or -1 for a single addRewrite, offset or -2 when not checked, the whole message:
        // a single addRewrite's names no rule, it is the regex's or template's own)
        Object[][] rows = {
            {List.of(rule("(abc", "x")), LinkRouterException.EREGEX, -1, 4,
                "invalid rewrite regex '(abc' at byte 4: missing closing parenthesis (PCRE2 error 114)"},
            {List.of(rule("*a", "x")), LinkRouterException.EREGEX, -1, 0,
                "invalid rewrite regex '*a' at byte 0: quantifier does not follow a repeatable item (PCRE2 error 109)"},
            {List.of(rule("[z-a]", "x")), LinkRouterException.EREGEX, -1, 3,
                "invalid rewrite regex '[z-a]' at byte 3: range out of order in character class (PCRE2 error 108)"},
            {List.of(rule("(x)", "app://$hots")), LinkRouterException.EPATTERN, -1, 6,
                "malformed rewrite target 'app://$hots' at byte 6: unknown word '$hots' (expected a group number, "
                + "${name}, $scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a literal dollar)"},
            {List.of(rule("(x)", "$1$2")), LinkRouterException.EPATTERN, -1, 2,
                "malformed rewrite target '$1$2' at byte 2: group 2 does not exist: the regex has 1 capture group"},
            {List.of(rule("(?<id>x)", "app://${ID}")), LinkRouterException.EPATTERN, -1, 6,
                "malformed rewrite target 'app://${ID}' at byte 6: the regex has no group named 'ID'"},
            {List.of(rule("x", "X"), rule("y", "Y"), rule("(", "bad")), LinkRouterException.EREGEX, 2, -2,
                "rewrite rule 2: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)"},
            {List.of(rule("x", "X"), rule("(?<n>y)", "${m}"), rule("z", "Z")), LinkRouterException.EPATTERN, 1, -2,
                "rewrite rule 1: malformed rewrite target '${m}' at byte 0: the regex has no group named 'm'"},
            {List.of(rule("x", "X"), rule("\udc80", "Y")), LinkRouterException.EINVAL, 1, -2,
                "rewrite rule 1: regex is not valid UTF-8 text: a lone surrogate at index 0"},
            {List.of(rule("x", "X"), rule("y", "Y\0")), LinkRouterException.EINVAL, 1, -2,
                "rewrite rule 1: template contains a NUL character at byte 1"},
            // A batch of one is a batch: its element is named and indexed (the library did not before 35c3e1d).
            {List.of(rule("(", "x")), LinkRouterException.EREGEX, 0, 1,
                "rewrite rule 0: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)"},
            {List.of(rule("(x)", "$2")), LinkRouterException.EPATTERN, 0, 0,
                "rewrite rule 0: malformed rewrite target '$2' at byte 0: group 2 does not exist: the regex has 1 "
                + "capture group"},
        };
        for (Object[] row : rows) {
            @SuppressWarnings("unchecked")
            List<RewriteRule> rules = (List<RewriteRule>) row[0];
            int index = (Integer) row[2];
            try (Router r = new Router()) {
                LinkRouterException e = assertThrows(LinkRouterException.class, () -> {
                    if (index < 0) {
                        r.addRewrite(rules.get(0).match(), rules.get(0).target());
                    } else {
                        r.addRewrites(rules);
                    }
                }, rules.toString());
                assertEquals(row[1], e.code(), e.getMessage());
                assertEquals(row[4], e.getMessage(), rules.toString());
                assertEquals(index, e.index(), e.getMessage());
                if ((Integer) row[3] != -2) {
                    assertEquals(row[3], e.offset(), e.getMessage());
                }
                assertEquals(Optional.empty(), r.rewrite("x"), "a refused batch left a rule");
            }
        }
    }

    /** A catastrophic regex ends in ELIMIT, never a hang; the limits are the router's own. */
    @Test
    void regexLimits() {
        try (Router r = new Router()) {
            r.addRewrite("(a+)+$", "app://x");
            r.add("app://x", "X");
            String longUrl = "a".repeat(5000) + "b";
            assertEquals(LinkRouterException.ELIMIT,
                assertThrows(LinkRouterException.class, () -> r.rewrite(longUrl)).code());
            assertEquals(LinkRouterException.ELIMIT,
                assertThrows(LinkRouterException.class, () -> r.resolve(longUrl)).code());
            assertEquals(LinkRouterException.ELIMIT,
                assertThrows(LinkRouterException.class, () -> r.canRoute(longUrl)).code());
            assertEquals(Optional.of("X"), r.resolve("aaa").map(Match::target));
        }
        try (Router r = new Router()) {
            r.addRewrite("^(a+)+$", "hit");
            assertEquals(Optional.empty(), r.rewrite("aaaaaaaaab"));
            r.setLimit(Limit.REGEX_MATCH, 5);
            assertEquals(LinkRouterException.ELIMIT,
                assertThrows(LinkRouterException.class, () -> r.rewrite("aaaaaaaaab")).code());
            r.setLimit(Limit.REGEX_MATCH, 10000);
            assertEquals(Optional.empty(), r.rewrite("aaaaaaaaab"));
        }
    }
}
