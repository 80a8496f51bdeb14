import MeshWire

/// What a decoder said about one vector's bytes.
public enum DecoderAnswer: Sendable {
    case decoded(JSONValue)
    case refused(code: String)
    /// The decoder does not implement this format.
    case unsupported
    /// The decoder itself misbehaved (no answer in time, exited, answered garbage).
    case broken(String)
}

/// A decoder under test: meshconform's own codecs or an external program.
public protocol VectorDecoder {
    mutating func answer(_ vector: Vector) -> DecoderAnswer
}

public enum VectorOutcome: Sendable {
    case passed
    case failed(String)
    case skipped(String)

    public var isFailure: Bool { if case .failed = self { true } else { false } }
}

public struct VectorCheck {
    /// Checks only accept / refuse, not which error code (for decoders with their own codes).
    public var ignoreErrorCodes = false

    public init(ignoreErrorCodes: Bool = false) { self.ignoreErrorCodes = ignoreErrorCodes }

    public func judge(_ vector: Vector, _ answer: DecoderAnswer) -> VectorOutcome {
        switch (vector.result, answer) {
        case (_, .unsupported):
            return .skipped("decoder does not implement \(vector.format)")
        case (_, .broken(let why)):
            return .failed("decoder failed: \(why)")
        case (.acceptable, _):
            return .passed
        case (.valid, .decoded(let got)):
            guard let want = vector.decoded, got.isEquivalent(to: want) else {
                return .failed("decoded differently:\n  expected \(JSONWriter.string(vector.decoded ?? .null, options: .init(escapeSlashes: false)))\n  got      \(JSONWriter.string(got, options: .init(escapeSlashes: false)))")
            }
            return .passed
        case (.valid, .refused(let code)):
            return .failed("refused with \(code), expected valid")
        case (.invalid, .decoded(let got)):
            return .failed("accepted, expected error \(vector.error ?? "?"); decoded \(JSONWriter.string(got, options: .init(escapeSlashes: false)))")
        case (.invalid, .refused(let code)):
            return ignoreErrorCodes || code == vector.error ? .passed : .failed("error \(code), expected \(vector.error ?? "?")")
        }
    }
}

/// meshconform's own codecs, with the checks only an encoder can do: a canonical vector
/// re-encodes to its bytes, every valid vector's decoded form re-encodes and decodes back to
/// itself, and an acceptable vector gets exactly the answer the file records for meshconform.
public struct BuiltinDecoder: VectorDecoder {
    public init() {}

    public mutating func answer(_ vector: Vector) -> DecoderAnswer {
        guard let codec = FormatCatalog.codec(vector.format) else { return .unsupported }
        do {
            return .decoded(try codec.decode(vector.bytes, vector.context))
        } catch {
            return .refused(code: error.code.rawValue)
        }
    }

    /// The full check of one vector against the built-in codecs.
    public mutating func check(_ vector: Vector) -> VectorOutcome {
        let answer = answer(vector)
        if vector.result == .acceptable {
            // Either answer is conforming, but ours must be the one the file documents.
            switch answer {
            case .decoded(let got) where vector.decoded.map(got.isEquivalent(to:)) == true: break
            case .refused(let code) where code == vector.error: break
            default: return .failed("meshconform's answer is not the one the vector records: \(answer)")
            }
        }
        let outcome = VectorCheck().judge(vector, answer)
        guard case .passed = outcome, case .decoded(let decoded) = answer, let codec = FormatCatalog.codec(vector.format) else {
            return outcome
        }
        let reencoded: [UInt8]
        do { reencoded = try codec.encode(decoded, vector.context) } catch { return .failed("decoded form does not encode: \(error)") }
        if vector.canonical && reencoded != vector.bytes {
            return .failed("canonical vector re-encodes to \(Hex.encode(reencoded))")
        }
        if !vector.canonical && vector.result == .valid && reencoded == vector.bytes {
            return .failed("vector says canonical: false but re-encodes to the same bytes")
        }
        guard let again = try? codec.decode(reencoded, vector.context), again.isEquivalent(to: decoded) else {
            return .failed("decode(encode(decoded)) differs from decoded")
        }
        return .passed
    }
}
