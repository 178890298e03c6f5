import RetainGraphUtilities
import StackTraces

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension TaskInspection {
    /// The frames of each resume address, read from the image files that hold them.
    ///
    /// Resume addresses are code itself (an async function's resume point), not return
    /// addresses: each is looked up where it points. The file read is the one the process
    /// maps (its inode checked), through `/proc/PID/root` when the process is another's.
    ///
    /// - Complexity: One symbolizer run per image holding addresses not seen before (cached
    ///   for the whole process: identical tasks cost one lookup).
    func symbolicate(_ addresses: [UInt]) -> [UInt: [StackFrame]] {
        var byImage: [ObjectIdentifier: (image: LoadedImage, addresses: [UInt])] = [:]
        var frames: [UInt: [StackFrame]] = [:]
        for address in addresses {
            guard let image = images.image(containing: address) else {
                frames[address] = [StackFrame(address: address)]
                continue
            }
            byImage[ObjectIdentifier(image), default: (image, [])].addresses.append(address)
        }
        for (image, batch) in byImage.values {
            guard let path = readablePath(of: image) else {
                for address in batch {
                    frames[address] = [imageOnlyFrame(address, image)]
                }
                continue
            }
            let file = ImageFileSymbolication.Image(
                path: path, bias: image.bias, base: image.range.lowerBound)
            let found = ImageFileSymbolication.frames(for: batch, in: file, exact: true)
            for address in batch {
                frames[address] = (found[address] ?? [imageOnlyFrame(address, image)]).map {
                    named($0, image)
                }
            }
        }
        return frames
    }

    /// The frame with the image's name as the process knows it (not `/proc/PID/root/…`).
    private func named(_ frame: StackFrame, _ image: LoadedImage) -> StackFrame {
        var frame = frame
        frame.imagePath = image.path
        frame.imageName = image.path.split(separator: "/").last.map(String.init) ?? image.path
        return frame
    }

    private func imageOnlyFrame(_ address: UInt, _ image: LoadedImage) -> StackFrame {
        let name = image.path.split(separator: "/").last.map(String.init) ?? image.path
        return StackFrame(
            address: address, imageName: name, imagePath: image.path,
            offsetInImage: address &- image.range.lowerBound,
            isSystem: name.hasPrefix("libswift") || name.hasPrefix("libc"))
    }

    /// A path this process can read the image's file at: the one whose inode is the image's.
    private func readablePath(of image: LoadedImage) -> String? {
        let candidates =
            isThisProcess ? [image.path] : ["/proc/\(processID)/root" + image.path, image.path]
        return candidates.first { path in
            var information = stat()
            return stat(path, &information) == 0 && UInt(information.st_ino) == image.file.inode
        }
    }
}
