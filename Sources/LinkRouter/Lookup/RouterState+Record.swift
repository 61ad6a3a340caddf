/// Resolving into a `MatchRecord`: the one-allocation match that the C ABI's `lr_match` and Swift's `Match` are.

extension RouterState {
    /// Resolves `url` and writes its match record, with `extras`, into memory from `allocate(size)`.
    /// Returns nil for no match; throws `.noMemory` when `allocate` returns nil, and what resolving throws.
    package func matchRecord(_ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                             allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        switch quickRecord(url, extras: extras, allocate: allocate) {
        case .matched(let m): return m
        case .noMatch: return nil
        case .general: return try generalMatchRecord(url, extras: extras, allocate: allocate)
        }
    }

    /// `matchRecord` through the general pipeline (`withResolution`): every URL, rule and limit.
    private func generalMatchRecord(_ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                                    allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        // Extras are not limited: the caller holds them already, and merging them costs time and memory in
        // proportion (SpanIndex hashes once there are many).
        // Read here, so that the closure below does not capture (and retain) the state.
        let maxNesting = limits.maxNestingDepth
        let outcome = try withResolution(url, query: true) { resolution -> Result<UnsafeMutableRawPointer?, RouterError> in
            guard let resolution else { return .success(nil) }
            do throws(RouterError) {
                // build gives nil only when memory is refused: `allocate`'s, or its own for merging.
                guard let block = try MatchRecord.build(resolution, extras: extras, maxNesting: maxNesting, allocate: allocate) else {
                    throw RouterError(.noMemory, "out of memory for a match")
                }
                return .success(block)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// `matchRecord` into a block of `thread`'s (its spare match block when big enough, else malloc's), with the
    /// block's capacity in the record: the C ABI's `lr_match`, freed with `freeCMatchBlock`. The general
    /// path: callers try `quickCMatchRecord` first.
    package func cMatchRecord(_ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                              thread: ThreadState) throws(RouterError) -> UnsafeMutableRawPointer? {
        var capacity = 0
        let m = try generalMatchRecord(url, extras: extras) { thread.takeMatchBlock($0, capacity: &capacity) }
        if let m { MatchRecord.setCapacity(m, capacity) }
        return m
    }

    /// `cMatchRecord` in the quick lane (`quickRecord`); `.general` sends the caller to `cMatchRecord`. Its outcome
    /// holds no error, so that it leaves the snapshot closure as a plain value.
    @inline(__always)  // into resolveRecord and the direct open, which run it for every lookup
    package func quickCMatchRecord(_ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                                   thread: ThreadState) -> QuickRecord {
        var capacity = 0
        // The thread's state unretained (the caller holds it), and the capacity through a pointer: captured as
        // they are, each lookup would retain the one and box the other.
        let t = Unmanaged.passUnretained(thread)
        let outcome = withUnsafeMutablePointer(to: &capacity) { capacity in
            quickRecord(url, extras: extras) { size in t._withUnsafeGuaranteedRef { $0.takeMatchBlock(size, capacity: capacity) } }
        }
        if case .matched(let m) = outcome { MatchRecord.setCapacity(m, capacity) }
        return outcome
    }
}
