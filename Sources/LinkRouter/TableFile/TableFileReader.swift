#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a route table file into memory with POSIX calls (the core has no Foundation).
enum TableFileReader {
    /// The bytes of the file at `path` (bytes as the OS takes them, no NUL). Throws `.io` with the OS's reason
    /// when it cannot be opened or read, `.limit` when it is bigger than `TableDocument.maxBytes`.
    static func read(path: [UInt8]) throws(RouterError) -> [UInt8] {
        let shown = excerpt(String(decoding: path, as: UTF8.self))
        guard !path.isEmpty else { throw RouterError(.io, "cannot open the table file: the path is empty") }
        // A path is a C string for open(2): a NUL would end it early and open another file.
        guard !path.contains(0) else { throw RouterError(.io, "cannot open table file '\(shown)': the path contains U+0000 (NUL)") }
        var terminated = path
        terminated.append(0)
        let fd = terminated.withUnsafeBufferPointer { buf -> Int32 in
            guard let base = buf.baseAddress else { return -1 }
            return base.withMemoryRebound(to: CChar.self, capacity: buf.count) { open($0, O_RDONLY | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw RouterError(.io, "cannot open table file '\(shown)': \(reason(errno))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        let chunk = 1 << 16
        while true {
            let before = bytes.count
            guard before <= TableDocument.maxBytes else {
                throw RouterError(.limit, "table file '\(shown)' is bigger than \(TableDocument.maxBytes) bytes (256 MiB)")
            }
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let got = bytes.withUnsafeMutableBufferPointer { buf -> Int in
                guard let base = buf.baseAddress else { return -1 }
                return Glibc.read(fd, base + before, chunk)
            }
            if got < 0 {
                let code = errno
                if code == EINTR {
                    bytes.removeLast(chunk)
                    continue
                }
                throw RouterError(.io, "cannot read table file '\(shown)': \(reason(code))")
            }
            bytes.removeLast(chunk - got)
            if got == 0 { return bytes }
        }
    }

    private static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
