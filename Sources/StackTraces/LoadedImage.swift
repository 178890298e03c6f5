/// An executable or shared library as the dynamic loader placed it: the facts the symbolizer
/// route needs, read from the loader itself (``containing(_:)``, in the door file).
///
/// The `Runtime` module's `ImageMap` reads `/proc/self/maps` and takes the lowest mapping of
/// each file as the image's start. A file mapped a second time to be read (the `Runtime` module
/// maps the ELF files it symbolicates, the census maps them for data symbols) usually lands
/// below the loaded library, and from then on that image's start, and every address looked up
/// in it, is wrong. The loader's own list has no such copies.
struct LoadedImage: Hashable, Sendable {
    /// The image's file, as the loader opened it (the running program: `/proc/self/exe`'s
    /// target).
    var path: String
    /// What to subtract from an address in the image to get the file's own address for it.
    var bias: UInt
    /// Where the image's lowest segment starts (its first page).
    var base: UInt

    /// The file name of ``path``, such as `libc.so.6`.
    var name: String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
