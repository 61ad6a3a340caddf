package dev.linkrouter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader (RFC 8259), enough for lr_match_to_json's output and the test tables: objects become
 * LinkedHashMap (key order kept), arrays ArrayList, strings String, numbers Long or Double, and true, false, null.
 * Unmodifiable results; IllegalArgumentException, with the offset, on malformed input.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value(0);
        reader.space();
        if (reader.at != text.length()) {
            throw reader.fail("text after the value");
        }
        return value;
    }

    private static final int MAX_DEPTH = 512;

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw fail("nested deeper than " + MAX_DEPTH);
        }
        space();
        if (at >= text.length()) {
            throw fail("a value is missing");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return word("true", Boolean.TRUE);
            case 'f':
                return word("false", Boolean.FALSE);
            case 'n':
                return word("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw fail("unexpected '" + c + "'");
        }
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        space();
        if (peek('}')) {
            at++;
            return Collections.unmodifiableMap(map);
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw fail("an object key must be a string");
            }
            String key = string();
            space();
            expect(':');
            map.put(key, value(depth + 1));
            space();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                return Collections.unmodifiableMap(map);
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> list = new ArrayList<>();
        at++;
        space();
        if (peek(']')) {
            at++;
            return Collections.unmodifiableList(list);
        }
        while (true) {
            list.add(value(depth + 1));
            space();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                return Collections.unmodifiableList(list);
            }
        }
    }

    private String string() {
        at++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw fail("an unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw fail("a control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw fail("an unterminated escape");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw fail("a short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException x) {
                        throw fail("a malformed \\u escape");
                    }
                    at += 4;
                    break;
                default:
                    throw fail("an unknown escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        boolean integral = true;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                integral = false;
                at++;
            } else {
                break;
            }
        }
        String digits = text.substring(start, at);
        try {
            return integral ? (Object) Long.parseLong(digits) : (Object) Double.parseDouble(digits);
        } catch (NumberFormatException e) {
            at = start;
            throw fail("a malformed number");
        }
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw fail("unexpected text");
        }
        at += word.length();
        return value;
    }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw fail("expected '" + c + "'");
        }
        at++;
    }

    private IllegalArgumentException fail(String what) {
        return new IllegalArgumentException("malformed JSON at offset " + at + ": " + what);
    }
}
