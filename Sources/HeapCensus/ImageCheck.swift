#if canImport(Glibc)
import Glibc
#endif

/// Whether an address lies in a loaded image (where metadata descriptors live).
enum ImageCheck {
    private typealias Dladdr = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer) -> Int32
    private static let dladdr: Dladdr? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "dladdr")
        .map { unsafeBitCast($0, to: Dladdr.self) }

    /// The corresponding C function is `dladdr`; true when it cannot be found.
    static func isInLoadedImage(_ address: UInt) -> Bool {
        guard let dladdr, let pointer = UnsafeRawPointer(bitPattern: address) else { return true }
        var info: (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) =
            (nil, nil, nil, nil)
        let found = withUnsafeMutableBytes(of: &info) { buffer in
            buffer.baseAddress.map { dladdr(pointer, $0) != 0 } ?? false
        }
        return found && info.1 != nil
    }
}
