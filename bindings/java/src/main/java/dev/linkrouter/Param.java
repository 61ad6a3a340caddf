package dev.linkrouter;

import java.util.Objects;

/** A name and a value: a merged parameter or a query pair of a {@link Match}. */
public record Param(String name, String value) {
    public Param {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
