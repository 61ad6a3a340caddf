// The seed's RAdapter in Swift: a `Decoder` that builds any `Decodable` model from a match's nested parameters
// (`Match.nestedParams`, where the library has already nested `info[nickname]=x` into `info: {nickname: x}`).
// Parameters are text, so a field's type says how to read it: `Int` takes a strict integer, `Bool` true/false,
// a struct a group of parameters, an array a `tags[]` list. Every failure names the field's dotted path.
import LinkRouter

/// Why an adapter could not build its model, e.g. "Model_RAdapter: name.bb: 'abc' is not an integer".
struct AdapterError: Error, CustomStringConvertible {
    let description: String
}

/// Decodes `Decodable` models from nested parameters; `name` prefixes its error messages.
struct ParamsDecoder {
    let name: String

    func decode<T: Decodable>(_ type: T.Type, from params: ParamValue) throws -> T {
        try T(from: ParamValueDecoder(value: params, codingPath: [], adapter: name))
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct ParamValueDecoder: Decoder {
    let value: ParamValue
    let codingPath: [any CodingKey]
    let adapter: String
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// "info.nickname"; "params" for the whole set.
    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "params" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .joined(separator: ".")
    }

    func failure(_ reason: String) -> AdapterError {
        AdapterError(description: "\(adapter): \(Self.path(codingPath))\(reason)")
    }

    func child(_ value: ParamValue, _ key: any CodingKey) -> ParamValueDecoder {
        ParamValueDecoder(value: value, codingPath: codingPath + [key], adapter: adapter)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let entries) = value else { throw failure(" is not a group of parameters") }
        return KeyedDecodingContainer(KeyedParams<Key>(decoder: self, entries: entries))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .list(let items) = value else { throw failure(" is not a list") }
        return UnkeyedParams(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleParam(decoder: self) }
}

private struct KeyedParams<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ParamValueDecoder
    let entries: [(key: String, value: ParamValue)]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { decoder.value[key.stringValue] != nil }

    private func child(_ key: Key) throws -> ParamValueDecoder {
        guard let value = decoder.value[key.stringValue] else {
            let path = ParamValueDecoder.path(codingPath + [key])
            throw AdapterError(description: "\(decoder.adapter): \(path) is missing")
        }
        return decoder.child(value, key)
    }

    // Each type reads itself from the child's decoder (String, Int... through SingleParam).
    private func value<T: Decodable>(_ key: Key) throws -> T { try T(from: child(key)) }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedParams: UnkeyedDecodingContainer {
    let decoder: ParamValueDecoder
    let items: [ParamValue]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(decoder: ParamValueDecoder, items: [ParamValue]) {
        self.decoder = decoder
        self.items = items
    }

    private mutating func next() throws -> ParamValueDecoder {
        guard !isAtEnd else { throw decoder.failure(" has only \(items.count) items") }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], IndexKey(currentIndex))
    }

    private mutating func value<T: Decodable>() throws -> T { try T(from: next()) }

    mutating func decodeNil() throws -> Bool { false }  // a list item is never absent
    mutating func decode(_ type: Bool.Type) throws -> Bool { try value() }
    mutating func decode(_ type: String.Type) throws -> String { try value() }
    mutating func decode(_ type: Double.Type) throws -> Double { try value() }
    mutating func decode(_ type: Float.Type) throws -> Float { try value() }
    mutating func decode(_ type: Int.Type) throws -> Int { try value() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try value() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try value() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try value() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try value() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try value() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try value() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try value() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try value() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try value() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try value() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// One parameter's text, read as the type asked for.
private struct SingleParam: SingleValueDecodingContainer {
    let decoder: ParamValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    private func text() throws -> String {
        guard let text = decoder.value.stringValue else { throw decoder.failure(" is not a single value") }
        return text
    }

    /// The same strict form in C and Python: an optional "-", then ASCII digits only (no spaces, "+" or "_").
    private func integer<T: FixedWidthInteger>() throws -> T {
        let text = try text()
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = T(text, radix: 10) else {
            throw decoder.failure(": '\(text)' is not an integer")
        }
        return value
    }

    private func real<T: LosslessStringConvertible>() throws -> T {
        let text = try text()
        guard let value = T(text) else { throw decoder.failure(": '\(text)' is not a number") }
        return value
    }

    func decodeNil() -> Bool { false }  // a parameter that is present always has a value ("" at least)

    func decode(_ type: Bool.Type) throws -> Bool {
        switch try text() {
        case "true", "1": return true
        case "false", "0": return false
        case let text: throw decoder.failure(": '\(text)' is not true or false")
        }
    }

    func decode(_ type: String.Type) throws -> String { try text() }
    func decode(_ type: Double.Type) throws -> Double { try real() }
    func decode(_ type: Float.Type) throws -> Float { try real() }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
}
