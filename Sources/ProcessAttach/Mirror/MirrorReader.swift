import Foundation
import RetainGraphUtilities

/// The memory reader libswiftRemoteMirror calls back: it serves every read from a
/// ``ProcessMemory`` (never from the live target), so reflection works the same once the
/// target runs again or has exited; or, for this process's own tasks (``TaskInspection``),
/// from this process's memory, copied with `process_vm_readv` so that no read can fault.
///
/// Every size the library asks for was computed from the target's words: a read from a copy is
/// served only when every byte of it was read from the target, and one that spans regions
/// (copied into a buffer) is at most ``maximumAssembled`` bytes. Once the analysis budget is
/// spent, every read fails.
final class MirrorReader {
    /// Where the bytes come from.
    enum Source {
        /// A stopped process's copy (or a core file).
        case copy(ProcessMemory)
        /// This process, read live.
        case thisProcess
    }

    let source: Source
    /// The images whose reflection sections and symbols the mirror is given.
    let images: ImageTable
    let budget: AnalysisBudget
    /// Symbol addresses by name, filled on demand.
    private var symbols: [String: UInt] = [:]

    /// The most bytes one read assembles from adjacent regions.
    static let maximumAssembled = 16 << 20

    init(_ memory: ProcessMemory, budget: AnalysisBudget = .unlimited) {
        source = .copy(memory)
        images = memory.images
        self.budget = budget
    }

    /// A reader of this process's own memory, with its images.
    init(thisProcessImages images: ImageTable) {
        source = .thisProcess
        self.images = images
        budget = .unlimited
    }

    private static func reader(_ context: UnsafeMutableRawPointer?) -> MirrorReader? {
        context.map { Unmanaged<MirrorReader>.fromOpaque($0).takeUnretainedValue() }
    }

    /// `QueryDataLayoutFunction`: 64-bit pointers and sizes, no Objective-C interop, no pointer
    /// authentication.
    static let queryLayout:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
        ) -> Int32 = { _, query, _, output in
            guard let output else { return 0 }
            switch query {
            case 0, 1:  // pointer size, size_t size
                output.storeBytes(of: UInt8(8), as: UInt8.self)
            case 4:  // least valid pointer value
                output.storeBytes(of: UInt64(0x1000), as: UInt64.self)
            case 5:  // Objective-C interop enabled
                output.storeBytes(of: UInt8(0), as: UInt8.self)
            default:
                return 0
            }
            return 1
        }

    /// `FreeBytesFunction`: frees the buffers `readBytes` assembled from several regions.
    static let freeBytes:
        @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) ->
            Void = { _, _, context in
                context?.deallocate()
            }

    /// `ReadBytesFunction`: a pointer into the copy (or file view) holding the bytes, or a
    /// buffer assembled from adjacent regions; nil when any byte was not read.
    static let readBytes:
        @convention(c) (
            UnsafeMutableRawPointer?, UInt64, UInt64,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeRawPointer? = { context, address, size, freeContext in
            freeContext?.pointee = nil
            guard let reader = reader(context), size < 1 << 32, reader.budget.poll() else {
                return nil
            }
            let start = UInt(address)
            let count = Int(size)
            guard case .copy(let memory) = reader.source else {
                return ThisProcessMemory.copy(start, count: count, freeContext: freeContext)
            }
            if let bytes = memory.bytes(at: start, count: count) { return bytes }
            // Spanning regions (adjacent mappings): copy the pieces, once it is known that
            // every byte was read.
            guard count <= MirrorReader.maximumAssembled, isRead(start, count: count, in: memory)
            else { return nil }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
            var done = 0
            while done < count {
                guard let region = memory.region(containing: start + UInt(done)) else {
                    buffer.deallocate()
                    return nil
                }
                let piece = min(count - done, Int(region.range.upperBound - start - UInt(done)))
                (buffer + done).copyMemory(
                    from: region.local(start + UInt(done)), byteCount: piece)
                done += piece
            }
            freeContext?.pointee = buffer
            return UnsafeRawPointer(buffer)
        }

    /// Whether every byte of the `count` bytes at `start` was read into `memory`.
    private static func isRead(_ start: UInt, count: Int, in memory: ProcessMemory) -> Bool {
        var done = 0
        while done < count {
            guard let region = memory.region(containing: start &+ UInt(done)) else { return false }
            done += Int(region.range.upperBound &- start &- UInt(done))
        }
        return true
    }

    /// `GetStringLengthFunction`: the length of the C string at an address, 0 when it does not
    /// end inside the region that holds it.
    static let stringLength: @convention(c) (UnsafeMutableRawPointer?, UInt64) -> UInt64 = {
        context, address in
        guard let reader = reader(context) else { return 0 }
        guard case .copy(let memory) = reader.source else {
            return UInt64(ThisProcessMemory.stringLength(at: UInt(address)) ?? 0)
        }
        guard let region = memory.region(containing: UInt(address)) else { return 0 }
        let available = Int(region.range.upperBound - UInt(address))
        let start = region.local(UInt(address))
        let length = strnlen(start.assumingMemoryBound(to: CChar.self), available)
        return length < available ? UInt64(length) : 0
    }

    /// `GetSymbolAddressFunction`: a symbol exported by one of the target's images, or 0.
    static let symbolAddress:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UInt64) -> UInt64 = {
            context, name, length in
            guard let reader = reader(context), let name, length < 4096 else { return 0 }
            let symbol = String(
                decoding: UnsafeRawBufferPointer(start: name, count: Int(length)), as: UTF8.self)
            return UInt64(reader.address(ofSymbol: symbol))
        }

    /// The address of the symbol `name` in the first image that exports it, or 0.
    func address(ofSymbol name: String) -> UInt {
        if let known = symbols[name] { return known }
        var found: UInt = 0
        for image in images.images where image.hasSwiftMetadata {
            if let address = image.address(ofSymbol: name) {
                found = address
                break
            }
        }
        symbols[name] = found
        return found
    }
}
