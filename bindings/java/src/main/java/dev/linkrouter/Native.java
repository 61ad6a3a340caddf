package dev.linkrouter;

import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.io.File;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;

/**
 * The C functions of Include/linkrouter.h, bound once by JNA's direct mapping; the only class that names them.
 *
 * <p>The library is loaded from, in order: the system property {@code linkrouter.library}, the environment
 * variable {@code LINKROUTER_LIBRARY} (a file, or a folder holding liblinkrouter.so), then JNA's search for
 * "linkrouter" ({@code jna.library.path}, the system's library folders). The first that loads wins; the library
 * must have the major and minor version this binding follows.
 *
 * <p>{@code size_t} is mapped to {@code long}: the binding refuses to load where size_t is not 64 bits.
 * Strings go in as NUL-terminated UTF-8 in native memory (see {@link NativeText}) and come back as borrowed
 * pointers, read at once.
 */
final class Native {
    /** LR_VERSION_NUMBER of the header this binding follows (MAJOR*10000 + MINOR*100 + PATCH): 0.1.0. */
    static final int HEADER_VERSION = 100;

    /** Frees what routers and matches hold in native memory once nothing can reach them (one thread for both). */
    static final Cleaner CLEANER = Cleaner.create();

    /** The path of the library loaded, or null when none loaded (then LOAD_FAILURE says why). */
    static final String LIBRARY_PATH;
    private static final String LOAD_FAILURE;

    static {
        String path = null;
        String failure = null;
        try {
            path = load();
        } catch (UnsatisfiedLinkError e) {
            failure = e.getMessage();
        }
        LIBRARY_PATH = path;
        LOAD_FAILURE = failure;
    }

    /** Throws UnsatisfiedLinkError, with every attempt, when the library did not load. */
    static void requireLoaded() {
        if (LOAD_FAILURE != null) {
            throw new UnsatisfiedLinkError(LOAD_FAILURE);
        }
    }

    private Native() {
    }

    private static String load() {
        if (com.sun.jna.Native.SIZE_T_SIZE != 8) {
            throw new UnsatisfiedLinkError("linkrouter: this binding needs a 64-bit size_t, the platform has "
                + com.sun.jna.Native.SIZE_T_SIZE + " bytes");
        }
        List<String> attempts = new ArrayList<>();
        List<String[]> candidates = new ArrayList<>();
        candidates.add(new String[] {"system property linkrouter.library", System.getProperty("linkrouter.library")});
        candidates.add(new String[] {"$LINKROUTER_LIBRARY", System.getenv("LINKROUTER_LIBRARY")});
        candidates.add(new String[] {"JNA's search", "linkrouter"});
        for (String[] candidate : candidates) {
            String label = candidate[0];
            String path = candidate[1];
            if (path == null || path.isEmpty()) {
                attempts.add(label + ": not set");
                continue;
            }
            if (!path.equals("linkrouter")) {
                File file = new File(path);
                if (file.isDirectory()) {
                    file = new File(file, "liblinkrouter.so");
                }
                if (!file.exists()) {
                    attempts.add(label + ": " + file + ": no such file");
                    continue;
                }
                path = file.getAbsolutePath();
            }
            NativeLibrary library;
            try {
                library = NativeLibrary.getInstance(path);
            } catch (UnsatisfiedLinkError e) {
                attempts.add(label + ": " + path + ": " + e.getMessage());
                continue;
            }
            // A library that loads but is not the right one is an error at once, not a reason to try the next.
            com.sun.jna.Native.register(Native.class, library);
            int version = lr_version_number();
            if (version / 100 != HEADER_VERSION / 100) {
                throw new UnsatisfiedLinkError("linkrouter: " + library.getFile() + " (" + label + ") is version "
                    + versionText(version) + ", but this binding needs " + versionText(HEADER_VERSION / 100 * 100)
                    .replaceAll("\\.0$", ".x") + " (major and minor must match)");
            }
            return library.getFile() == null ? path : library.getFile().getAbsolutePath();
        }
        throw new UnsatisfiedLinkError("linkrouter: could not load liblinkrouter.so; tried, in order:\n  "
            + String.join("\n  ", attempts));
    }

    static String versionText(int number) {
        return (number / 10000) + "." + (number / 100 % 100) + "." + (number % 100);
    }

    // Versions and errors.
    static native int lr_version_number();
    static native Pointer lr_errstr(int code);
    static native Pointer lr_last_error();
    static native long lr_last_error_offset();

    // Routers. Out-parameters are native cells (Memory) the caller reads after the call.
    static native int lr_router_new(Pointer out);
    static native void lr_router_free(Pointer r);
    static native int lr_router_add(Pointer r, Pointer pattern, Pointer target);
    static native int lr_router_add_route(Pointer r, Pointer pattern, Pointer target, Pointer name, Pointer metadata);
    static native int lr_router_add_many(Pointer r, Pointer patterns, Pointer targets, long count, Pointer failedIndex);
    static native int lr_router_remove(Pointer r, Pointer pattern);
    static native int lr_router_clear(Pointer r);
    static native int lr_router_count(Pointer r, Pointer out);
    static native int lr_router_can_route(Pointer r, Pointer url);
    static native int lr_router_resolve(Pointer r, Pointer url, Pointer out);
    static native int lr_router_resolve_with(Pointer r, Pointer url, Pointer names, Pointer values, long count,
                                             Pointer out);

    // Limits.
    static native int lr_router_set_limit(Pointer r, int limit, long value);
    static native int lr_router_get_limit(Pointer r, int limit, Pointer out);

    // Matches: the strings are borrowed from the match.
    static native Pointer lr_match_target(Pointer m);
    static native Pointer lr_match_pattern(Pointer m);
    static native Pointer lr_match_url(Pointer m);
    static native Pointer lr_match_rewritten(Pointer m);
    static native Pointer lr_match_scheme(Pointer m);
    static native Pointer lr_match_host(Pointer m);
    static native Pointer lr_match_port(Pointer m);
    static native Pointer lr_match_path(Pointer m);
    static native Pointer lr_match_fragment(Pointer m);
    static native Pointer lr_match_name(Pointer m);
    static native Pointer lr_match_metadata(Pointer m);
    static native int lr_match_route_id(Pointer m); // a uint32_t: read with Integer.toUnsignedLong
    static native long lr_match_meta_count(Pointer m);
    static native Pointer lr_match_meta_name(Pointer m, long i);
    static native Pointer lr_match_meta_value(Pointer m, long i);
    static native long lr_match_requires_count(Pointer m);
    static native Pointer lr_match_requires(Pointer m, long i);
    static native long lr_match_param_count(Pointer m);
    static native Pointer lr_match_param_name(Pointer m, long i);
    static native Pointer lr_match_param_value(Pointer m, long i);
    static native Pointer lr_match_get(Pointer m, Pointer name);
    static native long lr_match_query_count(Pointer m);
    static native Pointer lr_match_query_name(Pointer m, long i);
    static native Pointer lr_match_query_value(Pointer m, long i);
    static native int lr_match_to_json(Pointer m, Pointer out);
    static native void lr_match_free(Pointer m);

    // Rewrite rules.
    static native int lr_router_add_rewrite(Pointer r, Pointer match, Pointer target);
    static native int lr_router_add_rewrites(Pointer r, Pointer matches, Pointer targets, long count,
                                             Pointer failedIndex);
    static native int lr_router_remove_rewrite(Pointer r, Pointer match);
    static native int lr_router_clear_rewrites(Pointer r);
    static native int lr_router_rewrite(Pointer r, Pointer url, Pointer out);
    static native void lr_string_free(Pointer s);

    // Route tables. Documents go in as (pointer, length); reports, exports, URLs and explanations come back through
    // a char ** cell and are freed with lr_string_free.
    static native int lr_router_load_json(Pointer r, Pointer text, long len, int flags);
    static native int lr_router_load_file(Pointer r, Pointer path, int flags);
    static native int lr_router_check_json(Pointer r, Pointer text, long len, int flags, Pointer report);
    static native int lr_router_check_file(Pointer r, Pointer path, int flags, Pointer report);
    static native int lr_router_to_json(Pointer r, Pointer out);
    static native int lr_router_build_url(Pointer r, Pointer name, Pointer names, Pointer values, long count,
                                          Pointer out);
    static native int lr_router_explain(Pointer r, Pointer url, Pointer out);
    static native int lr_router_explain_text(Pointer r, Pointer url, Pointer out);

    /** LR_LOAD_REPLACE and LR_LOAD_MERGE. */
    static final int LOAD_REPLACE = 0;
    static final int LOAD_MERGE = 1;

    /** A borrowed C string as a Java string; null for NULL. */
    static String string(Pointer p) {
        return p == null ? null : p.getString(0, "UTF-8");
    }

    /**
     * A string the library allocated for the caller (a char ** out-parameter), copied and freed with lr_string_free.
     * Rewrites, the match's JSON, table exports and reports, built URLs and explanations use it.
     */
    static String take(Pointer p) {
        try {
            return string(p);
        } finally {
            lr_string_free(p);
        }
    }

    /**
     * The exception for a negative status just returned on this thread, with lr_last_error()'s message and
     * lr_last_error_offset()'s offset (both per thread, read together before any other call): a
     * {@link TableException} for ETABLE.
     */
    static LinkRouterException error(int code) {
        String message = string(lr_last_error());
        long at = lr_last_error_offset();
        int offset = at >= 0 && at <= Integer.MAX_VALUE ? (int) at : -1;
        if (message == null || message.isEmpty()) {
            message = string(lr_errstr(code));
        }
        if (code == LinkRouterException.ETABLE) {
            return new TableException(message, offset, List.of());
        }
        return new LinkRouterException(code, message, LinkRouterException.indexIn(message), offset);
    }

    /** Throws for a negative status; returns LR_OK, LR_NOMATCH and the other outcomes. */
    static int check(int code) {
        if (code < 0) {
            throw error(code);
        }
        return code;
    }
}
