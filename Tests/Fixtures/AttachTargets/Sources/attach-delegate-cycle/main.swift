// An owner and its delegate holding each other strongly (the delegate property is not weak):
// dropped by the program, kept alive by nothing but each other.
import FixtureSupport

protocol DownloadDelegate: AnyObject {
    func finished()
}

final class Downloader {
    var delegate: DownloadDelegate?
    let buffer = [UInt8](repeating: 1, count: 64)
}

final class DownloadController: DownloadDelegate {
    let downloader = Downloader()

    init() { downloader.delegate = self }

    func finished() {}
}

do {
    _ = DownloadController()
}
announceReady()
runForever()
