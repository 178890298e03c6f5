import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where libswiftRemoteMirror's code is in this process (found before the children fork).
nonisolated(unsafe) private var mirrorCode: (start: UInt, end: UInt) = (0, 0)

/// Makes a child say so on standard error when it faults inside libswiftRemoteMirror (a
/// segmentation fault or bus error whose instruction is the library's, or that jumped from the
/// library through a planted function pointer) past the library's guard (``RemoteMirror``'s,
/// which contains a fault whose instruction is the library's and passes the others on here), so
/// that the driver names the failure; the fault then ends the child as it would have.
///
/// - Parameter findLibrary: Whether to find the library's code now (in the parent, once).
func reportFaultsInsideTheMirror(findLibrary: Bool) {
    if findLibrary {
        // Read to its end: a read sized by the file's (zero) size stops at the first page.
        let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile()
        let maps = String(decoding: data ?? Data(), as: UTF8.self)
        for line in maps.split(separator: "\n")
        where line.hasSuffix("libswiftRemoteMirror.so") && line.contains(" r-xp ") {
            let bounds = line.split(separator: " ")[0].split(separator: "-")
            if bounds.count == 2, let start = UInt(bounds[0], radix: 16),
                let end = UInt(bounds[1], radix: 16)
            {
                mirrorCode = (start, end)
            }
        }
        return
    }
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = { signal, _, context in
        if let context {
            // `uc_mcontext.gregs[REG_RIP]` (16 on x86-64): the faulting instruction; and
            // `[REG_RSP]` (15): the stack, whose top is the return address into the library
            // when it called through a planted pointer.
            let registers = context.assumingMemoryBound(to: ucontext_t.self).pointee.uc_mcontext
                .gregs
            let instruction = UInt(bitPattern: Int(registers.16))
            let stack = UnsafePointer<UInt>(bitPattern: UInt(bitPattern: Int(registers.15)))
            let returnAddress = stack?.pointee ?? 0
            let inside = { (address: UInt) in
                address >= mirrorCode.start && address < mirrorCode.end
            }
            if inside(instruction) || inside(returnAddress) {
                let message = "reader-fuzzer: fault inside libswiftRemoteMirror\n"
                _ = message.withCString { write(2, $0, strlen($0)) }
            }
        }
        Glibc.signal(signal, SIG_DFL)  // returning faults again, and ends the child
    }
    // A stack of its own: the library's recursion over a type that contains itself overflows
    // the thread's stack, where the handler could not run.
    var alternate = stack_t()
    alternate.ss_size = 1 << 16
    alternate.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternate.ss_size, alignment: 16)
    alternate.ss_flags = 0
    sigaltstack(&alternate, nil)
    action.sa_flags = SA_SIGINFO | SA_ONSTACK
    sigaction(SIGSEGV, &action, nil)
    sigaction(SIGBUS, &action, nil)
}
