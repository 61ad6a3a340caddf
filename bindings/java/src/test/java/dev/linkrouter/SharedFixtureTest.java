package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Tests/Data/shop-urls.txt through the Java binding: every URL against examples/tables/shop.json, one line each, equal
 * byte for byte to Tests/Data/shop-urls.expected, which Tests/C/test_shop_urls.c holds C to (and the Swift, Python
 * and Go suites hold theirs to).
 */
class SharedFixtureTest {
    static List<String> lines(Path path) {
        try {
            String text = Files.readString(path, StandardCharsets.UTF_8);
            if (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            return List.of(text.split("\n", -1));
        } catch (IOException e) {
            throw new AssertionError("test data missing: " + path, e);
        }
    }

    /** One URL a line, exactly as written; blank lines and "#" comments are not URLs. */
    static List<String> urls() {
        List<String> urls = new ArrayList<>();
        for (String line : lines(TestData.repo().resolve("Tests/Data/shop-urls.txt"))) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                urls.add(line);
            }
        }
        return urls;
    }

    /** The line for a URL: the match's JSON, "nomatch <url>", or "error <code> <url>". */
    static String line(Router router, String url) {
        try {
            Optional<Match> m = router.resolve(url);
            return m.isPresent() ? m.get().json() : "nomatch " + url;
        } catch (LinkRouterException e) {
            return "error " + e.code() + " " + url;
        }
    }

    @Test
    void sharedFixtureGivesTheCLines() {
        List<String> urls = urls();
        List<String> expected = lines(TestData.repo().resolve("Tests/Data/shop-urls.expected"));
        assertTrue(urls.size() == expected.size() && urls.size() >= 20,
            urls.size() + " URLs, " + expected.size() + " expected lines");
        try (Router router = Router.fromFile(TestData.repo().resolve("examples/tables/shop.json"))) {
            for (int i = 0; i < urls.size(); i++) {
                assertEquals(expected.get(i), line(router, urls.get(i)), "line " + (i + 1) + ": " + urls.get(i));
            }
        }
    }
}
