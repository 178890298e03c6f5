internal import Runtime

/// Symbolication by `llvm-symbolizer`: one run per image and batch, for the batches that the
/// `Runtime` module would take long over.
///
/// The `Runtime` module runs an image's line-number programs once per address, so its cost per
/// address grows with the image's debug information (5 ms per address in a 40 MB debug test
/// bundle, 23 ms in a large debug server). `llvm-symbolizer` reads what it needs once per run.
/// Each run gets the image's path and file addresses (`return address - 1 - load bias`), and
/// answers with `--output-style=JSON --inlining --no-demangle`; names are demangled here with
/// ``Demangling``, and each frame gets the same fields, with the same rules, as the `Runtime`
/// route's (``RuntimeSymbolication``).
enum ExternalSymbolication {
    /// What one image's batch gave.
    enum Outcome {
        /// Frames for the addresses the symbolizer named; the others are left to the `Runtime`
        /// module.
        case resolved([UInt: [StackFrame]])
        /// The symbolizer cannot read this image: do not send it this image again.
        case imageUnreadable
        /// The symbolizer failed as a program (missing, hung, printed something else than its
        /// JSON): do not run it again.
        case symbolizerFailed
    }

    /// Symbolicates `addresses`, all in `image`.
    ///
    /// - Parameters:
    ///   - addresses: Return addresses (not 0) whose call (`address - 1`) lies in `image`; or,
    ///     when `exact`, addresses of code itself (an async function's resume point).
    ///   - image: The loaded image, as the dynamic loader placed it (here, or in another
    ///     process).
    ///   - images: The `Runtime` module's image list, for the frames' image fields; nil for an
    ///     image of another process (the fields then come from `image`).
    ///   - exact: Whether `addresses` name code itself rather than return addresses.
    ///   - symbolizer: The `llvm-symbolizer` to run.
    ///   - settings: The deadline of each run and the most addresses per run.
    /// - Returns: The frames found, or what failed.
    /// - Complexity: One process per ``SymbolicationSettings/maximumBatch`` addresses, each
    ///   some tens of milliseconds to start and read the image's tables, then microseconds per
    ///   address.
    static func symbolicate(
        _ addresses: [UInt],
        in image: LoadedImage,
        images: ImageMap?,
        symbolizer: String,
        settings: SymbolicationSettings,
        exact: Bool = false
    ) -> Outcome {
        let back: UInt = exact ? 0 : 1
        let lookups = addresses.filter { $0 > image.bias + back }.map {
            (address: $0, fileAddress: $0 - back - image.bias)
        }
        var found: [UInt: [StackFrame]] = [:]
        var start = 0
        while start < lookups.count {
            let batch = lookups[start..<min(start + max(settings.maximumBatch, 1), lookups.count)]
            start = batch.endIndex
            let arguments =
                ["--obj=" + image.path, "--inlining", "--no-demangle", "--output-style=JSON"]
                + batch.map { "0x" + String($0.fileAddress, radix: 16) }
            let output: [UInt8]
            switch SymbolizerProcess.run(
                symbolizer, arguments: arguments, timeout: settings.timeout)
            {
            case .success(let bytes): output = bytes
            case .failure(.exited): return .imageUnreadable
            case .failure: return .symbolizerFailed
            }
            guard let entries = try? SymbolizerOutput.entries(in: output),
                entries.count == batch.count
            else { return .symbolizerFailed }
            for (lookup, entry) in zip(batch, entries) {
                guard entry.address == nil || entry.address == lookup.fileAddress else {
                    return .symbolizerFailed
                }
                if entry.error != nil { return .imageUnreadable }
                let frames = stackFrames(
                    entry, address: lookup.address, fileAddress: lookup.fileAddress,
                    image: image, images: images)
                if frames.contains(where: { $0.function != nil }) {
                    found[lookup.address] = frames
                }
            }
        }
        return .resolved(found)
    }

    /// The frames of one answer, innermost (inlined) first, the real function last.
    private static func stackFrames(
        _ entry: SymbolizerOutput.Entry,
        address: UInt,
        fileAddress: UInt,
        image: LoadedImage,
        images: ImageMap?
    ) -> [StackFrame] {
        let answers = withoutMacroPlaceholders(entry.frames)
        return answers.enumerated().map { index, answer in
            let inlined = index < answers.count - 1
            var frame = StackFrame(address: address, isInlined: inlined)
            if let images {
                RuntimeSymbolication.addImage(
                    of: address, images: images, loaded: image, to: &frame)
            } else if address >= image.base {
                frame.imageName = image.name
                frame.imagePath = image.path
                frame.offsetInImage = address - image.base
            }
            let imageName = frame.imageName ?? image.name
            let rawName = Demangling.withoutSymbolVersion(answer.function)
            let hasName = !rawName.isEmpty && rawName != "??"
            var offset = 0
            if hasName {
                frame.mangledName = rawName
                frame.function = Demangling.demangle(rawName)
                if !inlined, let start = answer.start, start <= fileAddress {
                    offset = Int(fileAddress - start)
                    frame.offsetInFunction = offset
                } else if inlined {
                    frame.offsetInFunction = 0
                }
            }
            // A bare file name with no line is no line-table row: newer symbolizers name the
            // object's `STT_FILE` symbol (`Swift.o`, `crtstuff.c`) when there is no DWARF.
            let hasLocation =
                !answer.file.isEmpty && answer.file != "??"
                && (answer.line > 0 || answer.file.contains("/"))
            if hasLocation, !answer.file.hasSuffix("<compiler-generated>") {
                frame.file = answer.file
                frame.line = answer.line > 0 ? answer.line : nil
                frame.column = answer.column > 0 ? answer.column : nil
            }
            // The `Runtime` module's own rules, asked of its `Symbol` type where they are public
            // (thunks, entry points by name); its location rule (no line and column, or
            // compiler-generated code, and no thunk) has no public entry, so it is repeated here.
            let symbol = SymbolicatedBacktrace.Symbol(
                imageIndex: 0, imageName: imageName, rawName: hasName ? rawName : "",
                offset: offset, sourceLocation: nil)
            frame.isThunk = hasName && symbol.isSwiftThunk
            var systemFunction = hasName && symbol.isSystemFunction
            if hasLocation, !frame.isThunk,
                (answer.line == 0 && answer.column == 0)
                    || answer.file.hasSuffix("<compiler-generated>")
            {
                systemFunction = true
            }
            frame.isSystem =
                (systemFunction && !inlined) || SystemImages.contains(frame.imageName)
                || SystemImages.isEntryPoint(rawName)
            return frame
        }
    }

    /// The frames without the compiler's `__unknown_macro__` scopes.
    ///
    /// Swift describes some macro expansions as an inlined call of `__unknown_macro__` whose
    /// call site has no line: a placeholder, not a call. Its location (the line of the macro in
    /// the function that holds it) goes to that function's frame when that frame has no line,
    /// which is also what the `Runtime` module shows.
    static func withoutMacroPlaceholders(_ frames: [SymbolizerOutput.Frame])
        -> [SymbolizerOutput.Frame]
    {
        var result: [SymbolizerOutput.Frame] = []
        var pending: SymbolizerOutput.Frame?
        for (index, frame) in frames.enumerated() {
            if frame.function == "__unknown_macro__", index < frames.count - 1 {
                if pending == nil || frame.line > 0 { pending = frame }
                continue
            }
            var kept = frame
            if let placeholder = pending, kept.line == 0 {
                kept.file = placeholder.file
                kept.line = placeholder.line
                kept.column = placeholder.column
            }
            pending = nil
            result.append(kept)
        }
        return result
    }
}
