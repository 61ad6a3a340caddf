package dev.linkrouter;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The C strings of one call: Java strings copied into native memory as NUL-terminated UTF-8, freed together when
 * the call is done (try-with-resources). A string that cannot be UTF-8 (a lone surrogate) or that holds a NUL
 * character, which C would take for its end, is refused with EINVAL, never changed or cut.
 */
final class NativeText implements AutoCloseable {
    private final List<Memory> blocks = new ArrayList<>();

    /** A C string for {@code s} (NULL for null), named {@code what} in an error. */
    Pointer string(String what, String s) {
        if (s == null) {
            return null;
        }
        byte[] bytes = utf8(what, s);
        Memory block = new Memory(bytes.length + 1L);
        block.write(0, bytes, 0, bytes.length);
        block.setByte(bytes.length, (byte) 0);
        blocks.add(block);
        return block;
    }

    /**
     * The UTF-8 bytes of {@code s} for a (pointer, length) argument, no NUL added: null for "" (the length is then 0).
     * Refused as {@link #string} refuses; null is EMISUSE (the library would read NULL and 0 as an empty text).
     */
    Memory bytes(String what, String s) {
        if (s == null) {
            throw new LinkRouterException(LinkRouterException.EMISUSE, what + " is null");
        }
        byte[] bytes = utf8(what, s);
        if (bytes.length == 0) {
            return null;
        }
        Memory block = new Memory(bytes.length);
        block.write(0, bytes, 0, bytes.length);
        blocks.add(block);
        return block;
    }

    /** The length of what {@link #bytes} gave. */
    static long length(Memory bytes) {
        return bytes == null ? 0 : bytes.size();
    }

    /** A C array of C strings ({@code const char *const *}); NULL for an empty list. */
    Pointer array(List<String> items, java.util.function.IntFunction<String> name) {
        if (items.isEmpty()) {
            return null;
        }
        Memory array = new Memory((long) items.size() * com.sun.jna.Native.POINTER_SIZE);
        blocks.add(array);
        for (int i = 0; i < items.size(); i++) {
            array.setPointer((long) i * com.sun.jna.Native.POINTER_SIZE, string(name.apply(i), items.get(i)));
        }
        return array;
    }

    /** A native cell for an out-parameter (a pointer or a size_t), zeroed. */
    Memory cell() {
        Memory cell = new Memory(8);
        cell.clear();
        blocks.add(cell);
        return cell;
    }

    static byte[] utf8(String what, String s) {
        CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer encoded;
        try {
            encoded = encoder.encode(CharBuffer.wrap(s));
        } catch (CharacterCodingException e) {
            throw new LinkRouterException(LinkRouterException.EINVAL,
                what + " is not valid UTF-8 text: a lone surrogate at index " + firstLoneSurrogate(s));
        }
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                String message = what + " contains a NUL character at byte " + i;
                throw new LinkRouterException(LinkRouterException.EINVAL, message, LinkRouterException.indexIn(message),
                    i);
            }
        }
        return bytes;
    }

    private static int firstLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        for (Memory block : blocks) {
            block.close();
        }
        blocks.clear();
    }
}
