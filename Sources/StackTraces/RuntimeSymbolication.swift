@_spi(Internal) @_spi(MemoryReaders) internal import Runtime

/// Symbolication through the toolchain's `Runtime` module (SE-0419), for addresses we captured
/// ourselves.
///
/// `Runtime.Backtrace` has no public initializer from raw addresses, but it is `Codable`, and its
/// encoded form is the documented, versioned Compact Backtrace Format (swift
/// `docs/CompactBacktraceFormat.md`, version 0) in base64. We write that form for our return
/// addresses, decode a `Runtime.Backtrace` from it with a tiny in-memory `Decoder`, and call
/// `symbolicated(with:)` with a cached `ImageMap`. This gives demangleable names, symbol
/// offsets, image names, inlined frames and file:line from DWARF, in process, with no helper
/// program. When the format is ever refused, `symbolicate` returns `nil` and the caller falls
/// back to the image list alone.
enum RuntimeSymbolication {
    /// The images loaded in the process, as the `Runtime` module sees them.
    ///
    /// Each file `/proc/self/maps` lists is checked for an ELF header at its lowest mapping
    /// through the module's fault-safe local reader: `ImageMap.capture()` reads that memory
    /// directly, and crashed a test process (SIGSEGV) when a mapping was gone or unreadable by
    /// the time it looked (a library another thread unloaded, a file mapped without read
    /// access).
    ///
    /// - Complexity: About 0.4 ms (it reads the dynamic loader's list and each image's build ID);
    ///   cache the result.
    static func captureImages() -> ImageMap {
        ImageMap.capture(using: LocalMemoryReader(), forProcess: nil)
    }

    /// Whether `address` falls inside one of `images`.
    static func contains(_ images: ImageMap, _ address: UInt) -> Bool {
        images.indexOfImage(at: Runtime.Backtrace.Address(UInt64(address))) != nil
    }

    /// The path of the first image called `name`, such as `libswiftCore.so`.
    static func path(ofImageNamed name: String, in images: ImageMap) -> String? {
        images.first { $0.name == name }?.path
    }

    /// Symbolicates return addresses.
    ///
    /// - Parameters:
    ///   - addresses: Return addresses, each looked up at `address - 1` so that a call at the end
    ///     of a function reports the call's line, not the next function.
    ///   - images: The process's images, from ``captureImages()``.
    /// - Returns: For each address that the `Runtime` module could resolve, its frames (inlined
    ///   calls first, the real function last); `nil` if the `Runtime` module refused the trace.
    /// - Complexity: 30–300 µs per address of a stripped library; 3–7 ms per address of an
    ///   8 MB binary with DWARF, more in larger ones (line-number programs run per address),
    ///   after 50–100 ms for the image's first.
    static func symbolicate(_ addresses: [UInt], images: ImageMap) -> [UInt: [StackFrame]]? {
        guard !addresses.isEmpty else { return [:] }
        let decoder = StringFieldsDecoder(fields: [
            "architecture": architecture,
            "backtrace": Base64.encode(compactFormat(addresses)),
        ])
        guard let backtrace = try? Runtime.Backtrace(from: decoder),
            let symbolicated = backtrace.symbolicated(
                with: images,
                options: [.showInlineFrames, .showSourceLocations, .useSymbolCache]
            )
        else { return nil }

        var result: [UInt: [StackFrame]] = [:]
        var loaded: [UInt: LoadedImage?] = [:]
        for frame in symbolicated.frames {
            guard case .returnAddress(let raw) = frame.captured,
                let value = UInt64(raw), let address = UInt(exactly: value)
            else { continue }
            let image = loaded[address] ?? LoadedImage.containing(address - 1)
            loaded[address] = image
            result[address, default: []].append(
                stackFrame(frame, address: address, images: images, loaded: image))
        }
        return result
    }

    /// A frame with only the image and offset of `address`, for addresses with no symbol.
    static func imageOnlyFrame(_ address: UInt, images: ImageMap) -> StackFrame {
        var frame = StackFrame(address: address)
        let loaded = address > 0 ? LoadedImage.containing(address - 1) : nil
        addImage(of: address, images: images, loaded: loaded, to: &frame)
        frame.isSystem = SystemImages.contains(frame.imageName)
        return frame
    }

    /// Sets the image name, path and offset of `address` on `result`.
    ///
    /// They come from `images`, as they always did, where it places the image where the loader
    /// did; from `loaded` where `images` misplaces it (see ``LoadedImage``).
    ///
    /// - Parameters:
    ///   - address: The return address.
    ///   - images: The `Runtime` module's image list.
    ///   - loaded: The loader's image holding `address - 1`, if known.
    ///   - result: The frame to complete.
    static func addImage(
        of address: UInt, images: ImageMap, loaded: LoadedImage?, to result: inout StackFrame
    ) {
        let imageIndex = images.indexOfImage(at: Runtime.Backtrace.Address(UInt64(address)))
        if let imageIndex {
            let image = images[imageIndex]
            if let base = UInt64(image.baseAddress), let base = UInt(exactly: base),
                address >= base, loaded == nil || loaded?.base == base
            {
                result.imageName = image.name
                result.imagePath = image.path
                result.offsetInImage = address - base
                return
            }
        }
        if let loaded, address >= loaded.base {
            result.imageName = loaded.name
            result.imagePath = loaded.path
            result.offsetInImage = address - loaded.base
        }
    }

    /// Whether `images` places the image holding `address - 1` where the loader placed it.
    static func placesRight(_ images: ImageMap, _ address: UInt, _ loaded: LoadedImage) -> Bool {
        guard address > 0,
            let index = images.indexOfImage(at: Runtime.Backtrace.Address(UInt64(address - 1))),
            let base = UInt64(images[index].baseAddress)
        else { return false }
        return UInt(exactly: base) == loaded.base
    }

    /// Converts one `Runtime` frame into a ``StackFrame``.
    private static func stackFrame(
        _ frame: SymbolicatedBacktrace.Frame,
        address: UInt,
        images: ImageMap,
        loaded: LoadedImage?
    ) -> StackFrame {
        var result = StackFrame(address: address, isInlined: frame.inlined)
        addImage(of: address, images: images, loaded: loaded, to: &result)
        guard let symbol = frame.symbol else { return result }
        if result.imageName == nil, !symbol.imageName.isEmpty, symbol.imageName != "<unknown>" {
            result.imageName = symbol.imageName
        }
        if !symbol.rawName.isEmpty, symbol.rawName != "<unknown>" {
            let rawName = Demangling.withoutSymbolVersion(symbol.rawName)
            result.mangledName = rawName
            result.function = Demangling.demangle(rawName)
            result.offsetInFunction = frame.inlined ? 0 : symbol.offset
        }
        if let location = symbol.sourceLocation, !location.path.isEmpty,
            !location.path.hasSuffix("<compiler-generated>")
        {
            result.file = location.path
            result.line = location.line > 0 ? location.line : nil
            result.column = location.column > 0 ? location.column : nil
        }
        result.isThunk = frame.isSwiftThunk
        // The `Runtime` module calls any frame at line 0 "system"; an inlined call often has no
        // line of its own, so inlined frames are judged by their image and name only.
        result.isSystem =
            (frame.isSystem && !frame.inlined) || SystemImages.contains(result.imageName)
            || SystemImages.isEntryPoint(symbol.rawName)
        return result
    }

    /// The architecture name `Runtime.Backtrace` records for this machine.
    private static var architecture: String {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "arm64"
        #else
        "unknown"
        #endif
    }

    /// Compact Backtrace Format, version 0, 64-bit words: one absolute `ra` instruction with
    /// 8 big-endian address bytes per frame, then `end`.
    static func compactFormat(_ addresses: [UInt]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + addresses.count * 9)
        bytes.append(0b0000_0010)  // version 0, 64-bit machine words
        for address in addresses {
            bytes.append(0b0010_1111)  // ra, absolute, 8 bytes follow
            let word = UInt64(address)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        bytes.append(0)  // end
        return bytes
    }
}

/// Images whose frames are the toolchain's or the C library's, never the program's.
enum SystemImages {
    /// Whether `imageName` names a toolchain runtime, Foundation, Dispatch, XCTest, Swift
    /// Testing, the C library or the dynamic loader.
    static func contains(_ imageName: String?) -> Bool {
        guard let imageName else { return false }
        let prefixes = [
            "libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "libXCTest",
            "libTesting", "lib_Testing", "libc.so", "libc-", "ld-linux", "libpthread", "libunwind",
            "libstdc++", "libgcc_s",
        ]
        return prefixes.contains { imageName.hasPrefix($0) }
    }

    /// Whether `rawName` is the C library's program entry code linked into every executable.
    static func isEntryPoint(_ rawName: String) -> Bool {
        rawName == "_start" || rawName.hasPrefix("__libc_start")
    }
}
