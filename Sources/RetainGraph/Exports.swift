// The live graph speaks the object graph's vocabulary (`Ownership`, `ReferenceRole`,
// `RootKind`, `CompactGraph`) in its public API: code that imports RetainGraph gets it too.
@_exported import ObjectGraph
