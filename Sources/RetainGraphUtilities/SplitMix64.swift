/// SplitMix64 (Steele, Lea and Flood): a small seeded random number generator, for runs that
/// must be reproduced from their seed (the reader fuzzer's inputs, generated graphs).
///
/// Not for anything secret: its state is its output's seed.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let index = Int.random(in: 0..<10, using: &random)   // the same on every run
/// ```
package struct SplitMix64: RandomNumberGenerator {
    /// The generator's state: the seed, advanced by every number drawn.
    package var state: UInt64

    /// A generator whose numbers follow from `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next number.
    ///
    /// - Complexity: O(1).
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
