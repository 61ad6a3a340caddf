package dev.linkrouter;

/**
 * Something a valid route table probably has wrong.
 *
 * @param pointer where, as a JSON pointer
 * @param kind    "shadowed" (a route that can never be the match), "overlap" (two routes that both match some URL)
 *                or "rewrite_routes_nowhere" (a rule whose target no route can match)
 * @param reason  the library's words
 */
public record TableWarning(String pointer, String kind, String reason) {
}
