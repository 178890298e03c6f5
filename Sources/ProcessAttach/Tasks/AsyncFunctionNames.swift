import RetainGraphUtilities
import StackTraces

/// Short names for an async backtrace's functions, as a person reads them:
/// `Task.sleep(for:tolerance:clock:)` for `(1) await resume partial function for static
/// (extension in Swift):Swift.Task< where A == Swift.Never, B == Swift.Never>.sleep<A where A1:
/// Swift.Clock>(for: A1.Duration, tolerance: A1.Duration?, clock: A1) async throws -> ()`.
///
/// The demangled name loses its resume-point prefix, its `static` and `(extension in …)`
/// markers, its generic clauses, its module (the frame's own, or `Swift`), its parameter types
/// (labels are kept) and its effects and result; closures keep their number and what they are
/// in (`closure #1 in startAll(many:mailbox:)`). Names come from another process's files:
/// they are escaped.
enum AsyncFunctionNames {
    /// The frame's function, shortened; its address when it has none.
    static func short(_ frame: StackFrame) -> String {
        guard let function = frame.function else {
            return frame.imageName.map { "\(PrintableText.escaped($0)) + 0x\(hex(frame))" }
                ?? "0x" + String(frame.address, radix: 16)
        }
        return PrintableText.escaped(short(function, module: frame.module))
    }

    /// `main.swift:25`: the frame's file name and line, or nil without a line.
    static func location(of frame: StackFrame) -> String? {
        guard let file = frame.file, let line = frame.line else { return nil }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return PrintableText.escaped(name) + ":\(line)"
    }

    private static func hex(_ frame: StackFrame) -> String {
        String(frame.offsetInImage ?? frame.address, radix: 16)
    }

    /// A demangled function name, shortened.
    static func short(_ demangled: String, module: String?) -> String {
        var name = Substring(demangled)
        for marker in [" resume partial function for ", "partial apply forwarder for "] {
            if let range = name.range(of: marker) { name = name[range.upperBound...] }
        }
        // `generic specialization <Swift.ContinuousClock> of closure #1 …`: the function itself.
        while name.hasPrefix("generic specialization ") || name.hasPrefix("specialized ")
            || name.hasPrefix("function signature specialization "),
            let of = topLevelSplit(name, separator: " of ").dropFirst().first
        {
            name = name[of.startIndex...]
        }
        let parts = topLevelSplit(name, separator: " in ").map { part -> String in
            var text = withoutGenerics(part)
            for prefix in ["static ", "merged "] where text.hasPrefix(prefix) {
                text.removeFirst(prefix.count)
            }
            if text.hasPrefix("closure #") || text.hasPrefix("implicit closure #") {
                return (text.hasPrefix("implicit") ? "implicit closure " : "closure ")
                    + closureNumber(text)
            }
            return function(text, module: module)
        }
        return parts.joined(separator: " in ")
    }

    /// `#2` from `implicit closure #2 …`.
    private static func closureNumber(_ text: String) -> String {
        guard let hash = text.firstIndex(of: "#") else { return "" }
        return String(text[hash...].prefix { $0 != " " && $0 != "(" })
    }

    /// `Swift.Task.sleep(for: A.Duration, tolerance: A.Duration?) async throws -> ()` →
    /// `Task.sleep(for:tolerance:)`; `Swift.Task.value.getter : A` → `Task.value`.
    private static func function(_ text: String, module: String?) -> String {
        var body = Substring(text)
        if let range = body.range(of: "(extension in ") {
            if let colon = body[range.upperBound...].firstIndex(of: ":") {
                body = body[body.index(after: colon)...]
            }
        }
        body = withoutPrivateDiscriminators(body)
        var name = String(body.prefix { $0 != "(" && $0 != " " })
        for accessor in [".getter", ".setter", ".modify", ".read"] where name.hasSuffix(accessor) {
            name.removeLast(accessor.count)
        }
        for prefix in [module, "Swift", "_Concurrency"].compactMap({ $0 }) {
            if name.hasPrefix(prefix + ".") { name.removeFirst(prefix.count + 1) }
        }
        guard let open = body.firstIndex(of: "("),
            let close = matchingParenthesis(in: body, from: open)
        else { return name }
        let parameters = topLevelSplit(body[body.index(after: open)..<close], separator: ", ")
        let labels = parameters.filter { !$0.isEmpty }.map { parameter -> String in
            let label = parameter.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            let rest = parameter.dropFirst(label.count)
            return (!label.isEmpty && rest.hasPrefix(":") ? String(label) : "_") + ":"
        }
        return name + "(" + labels.joined() + ")"
    }

    /// `ServiceGroup._run(…)` for `ServiceGroup.(_run in _3C5F…)(…)`: a private declaration's
    /// name without the discriminator of the file that declares it.
    private static func withoutPrivateDiscriminators(_ text: Substring) -> Substring {
        var result = Substring(text)
        while let open = result.range(of: ".(")?.upperBound,
            let marker = result[open...].range(of: " in _"),
            let close = result[marker.upperBound...].firstIndex(of: ")"),
            result[open..<marker.lowerBound].allSatisfy({ $0 != "(" && $0 != ")" }),
            result[marker.upperBound..<close].allSatisfy({ $0.isLetter || $0.isNumber })
        {
            let name = result[open..<marker.lowerBound]
            let start = result.index(before: open)
            result = result[..<start] + name + result[result.index(after: close)...]
        }
        return result
    }

    /// `text` without its `<…>` clauses.
    private static func withoutGenerics(_ text: Substring) -> String {
        var result = ""
        var depth = 0
        var previous: Character = " "
        for character in text {
            switch character {
            case "<": depth += 1
            case ">" where depth > 0 && previous != "-": depth -= 1
            default: if depth == 0 { result.append(character) }
            }
            previous = character
        }
        return result
    }

    /// The index of the `)` that closes the `(` at `open`.
    private static func matchingParenthesis(in text: Substring, from open: Substring.Index)
        -> Substring.Index?
    {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(", "[": depth += 1
            case ")", "]":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `text` split at `separator` where no bracket is open.
    private static func topLevelSplit(_ text: Substring, separator: String) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if "([<".contains(character) {
                depth += 1
            } else if ")]>".contains(character), depth > 0,
                !(character == ">" && index > text.startIndex
                    && text[text.index(before: index)] == "-")
            {
                depth -= 1
            } else if depth == 0, text[index...].hasPrefix(separator) {
                parts.append(text[start..<index])
                index = text.index(index, offsetBy: separator.count)
                start = index
                continue
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }
}
