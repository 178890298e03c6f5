/// XCTest helpers and a Swift Testing trait. (Being built.)
public enum RetainGraphTesting {}
