package dev.linkrouter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The shared test tables of the source tree; a missing file fails the run (never a skip). */
final class TestData {
    private TestData() {
    }

    static Path repo() {
        String repo = System.getProperty("linkrouter.repo");
        if (repo == null) {
            throw new AssertionError("the system property linkrouter.repo (the source tree) is not set");
        }
        return Path.of(repo);
    }

    /**
     * Tests/Data/semantics.json: SPEC sections 2-4 as tables, run by the Swift, Python and Go suites too. `params` is
     * the flat view (Match.params()); `nested`, when a row gives it, the nested view (Match.nestedParams()).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> semantics() {
        Path path = repo().resolve("Tests/Data/semantics.json");
        try {
            return (Map<String, Object>) Json.parse(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AssertionError("test data missing: " + path, e);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Map<String, Object> table, String key) {
        Object value = table.get(key);
        if (!(value instanceof List)) {
            throw new AssertionError("semantics.json has no list " + key);
        }
        return (List<Object>) value;
    }
}
