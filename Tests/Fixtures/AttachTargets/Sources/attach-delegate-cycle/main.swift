// An owner and its delegate holding each other strongly (the delegate property is not weak):
// dropped by the program, kept alive by nothing but each other. The owner's `downloader` is a
// property of its superclass, as in a framework's base controller: an attach reads every
// class of an instance's hierarchy, not only its own.
import FixtureSupport

protocol DownloadDelegate: AnyObject {
    func finished()
}

final class Downloader {
    var delegate: DownloadDelegate?
    let buffer = [UInt8](repeating: 1, count: 64)
}

class BaseController {
    let downloader = Downloader()
    let title = "downloads"
}

final class DownloadController: BaseController, DownloadDelegate {
    var finishedCount = 0

    override init() {
        super.init()
        downloader.delegate = self
    }

    func finished() { finishedCount += 1 }
}

do {
    _ = DownloadController()
}
announceReady()
runForever()
