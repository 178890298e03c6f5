extension Duration {
    /// `1.5 s`, `250 ms`: how RetainGraph prints a duration to a person.
    package var shortDescription: String {
        let total = seconds
        if total < 1 { return "\(Int((total * 1000).rounded())) ms" }
        let tenths = (total * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) s" : "\(tenths) s"
    }

    /// The duration in seconds, as a `Double`.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
