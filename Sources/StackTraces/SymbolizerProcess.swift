// The only Swift file that imports the CSymbolizer door: starting the external symbolizer, and
// the loader's own list of images. Everything about child processes stays here.
internal import CSymbolizer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a program to completion and collects its standard output, never past a deadline.
///
/// The child is started by `rg_symbolizer_spawn` (`posix_spawn` in a process group of its own,
/// standard input and error on /dev/null, output on a close-on-exec pipe, no other descriptor
/// inherited). This side waits with `poll` until the pipe reaches end of file, then reaps the
/// child with `waitpid`; past the deadline it kills the whole group with `SIGKILL` and reaps the
/// child, so no run leaves a zombie, a descriptor or a hung thread behind.
enum SymbolizerProcess {
    /// Why a run gave no output.
    enum Failure: Error, Equatable {
        /// `posix_spawn` or `pipe2` failed with this `errno` (`ENOENT`: no such program).
        case couldNotStart(errno: Int32)
        /// The deadline passed; the child was killed.
        case timedOut
        /// Reading the pipe or waiting for the child failed with this `errno`.
        case ioError(errno: Int32)
        /// The child printed more than ``outputLimit`` bytes; it was killed.
        case tooMuchOutput
        /// The child exited with a status other than 0, or was killed by a signal.
        case exited(status: Int32)
    }

    /// The most output a run may print: far more than any real batch produces.
    static let outputLimit = 256 << 20

    /// Runs `path` with `arguments` and returns what it printed.
    ///
    /// - Parameters:
    ///   - path: An absolute path to the program.
    ///   - arguments: Its arguments, without the program name.
    ///   - timeout: How long the whole run may take, from start to exit.
    /// - Returns: The bytes the program wrote to its standard output, or why there are none.
    static func run(_ path: String, arguments: [String], timeout: Duration) -> Result<
        [UInt8], Failure
    > {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        guard !argv.dropLast().contains(where: { $0 == nil }) else {
            return .failure(.couldNotStart(errno: ENOMEM))
        }
        var readEnd: Int32 = -1
        var pid: pid_t = 0
        let error = rg_symbolizer_spawn(path, &argv, &readEnd, &pid)
        guard error == 0 else { return .failure(.couldNotStart(errno: error)) }
        let output = readAll(readEnd, until: deadline)
        close(readEnd)
        if case .failure = output {
            killAndReap(pid)
            return output
        }
        switch reap(pid, until: deadline) {
        case .success(0): return output
        case .success(let status): return .failure(.exited(status: status))
        case .failure(let failure): return .failure(failure)
        }
    }

    /// Reads `descriptor` until end of file, the deadline or ``outputLimit``.
    private static func readAll(_ descriptor: Int32, until deadline: ContinuousClock.Instant)
        -> Result<[UInt8], Failure>
    {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = milliseconds(until: deadline)
            guard left > 0 else { return .failure(.timedOut) }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, left)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(.ioError(errno: errno))
            }
            if ready == 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .success(output) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(.ioError(errno: errno))
            }
            output.append(contentsOf: chunk[..<count])
            if output.count > outputLimit { return .failure(.tooMuchOutput) }
        }
    }

    /// Waits for `pid` to exit, polling every millisecond, and kills it at the deadline.
    ///
    /// - Returns: The exit status (0 for success); a signal's death counts as its number + 128.
    private static func reap(_ pid: pid_t, until deadline: ContinuousClock.Instant) -> Result<
        Int32, Failure
    > {
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return .success(exitStatus(status)) }
            if result < 0 {
                if errno == EINTR { continue }
                // ECHILD: someone else reaped it (SIGCHLD ignored, or a reaper of every child).
                return errno == ECHILD ? .success(0) : .failure(.ioError(errno: errno))
            }
            guard milliseconds(until: deadline) > 0 else {
                killAndReap(pid)
                return .failure(.timedOut)
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// Kills the child's process group and waits for the child, so that it leaves no zombie.
    private static func killAndReap(_ pid: pid_t) {
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// `WEXITSTATUS`, or 128 + the signal for a child a signal killed.
    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Milliseconds left until `deadline`, rounded up, at least 0.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return Int32(
            clamping: seconds * 1_000 + (attoseconds + perMillisecond - 1) / perMillisecond)
    }
}

extension LoadedImage {
    /// The loaded image whose segments contain `address`, from `dl_iterate_phdr` (through
    /// `rg_loaded_image`).
    ///
    /// - Parameter address: Any address, such as a return address minus 1.
    /// - Returns: The image, or `nil` when no loaded image contains `address`.
    /// - Complexity: O(*n*) in the number of loaded images and their segments; about a
    ///   microsecond.
    static func containing(_ address: UInt) -> LoadedImage? {
        var bias: UInt = 0
        var base: UInt = 0
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let found = buffer.withUnsafeMutableBufferPointer { path in
            rg_loaded_image(address, &bias, &base, path.baseAddress!, path.count)
        }
        guard found == 1 else { return nil }
        var path = String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.isEmpty {
            guard let program = programPath else { return nil }
            path = program
        }
        return LoadedImage(path: path, bias: bias, base: base)
    }

    /// The running program's path, read once from `/proc/self/exe`.
    private static let programPath: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}
