import NIOCore

extension Session {
    /// Starts the session's repeating refresh with `strategy`.
    ///
    /// The handle is stored in the session (as real code does, to cancel it later), so a
    /// strong capture makes a cycle too: session ⇒ refresh ⇒ closure ⇒ session. What keeps the
    /// cycle alive is its holder outside the Swift heap: the event loop's scheduled-task queue,
    /// or the concurrency runtime's running `Task`.
    ///
    /// ```swift
    /// session.startRefreshing(.repeatedTaskWeak, on: context.eventLoop, every: .seconds(30))
    /// ```
    ///
    /// - Parameters:
    ///   - strategy: The primitive, and whether the refresh stops with the session.
    ///   - loop: The event loop a repeated task runs on (the request's connection's loop).
    ///   - interval: The time between two refreshes.
    public func startRefreshing(
        _ strategy: RefreshStrategy, on loop: any EventLoop, every interval: Duration
    ) {
        self.strategy.withLockedValue { $0 = strategy }
        let running: Refresher
        switch (strategy.mechanism, strategy.capturesWeakly) {
        case (.repeatedTask, false): running = .repeatedTask(refreshStrongly(on: loop, interval))
        case (.repeatedTask, true): running = .repeatedTask(refreshWeakly(on: loop, interval))
        case (.taskLoop, false): running = .task(refreshStronglyInTask(interval))
        case (.taskLoop, true): running = .task(refreshWeaklyInTask(interval))
        }
        refresher.withLockedValue { $0 = running }
    }

    /// The leak: the closure captures `self`, and the event loop keeps the task until cancelled.
    private func refreshStrongly(on loop: any EventLoop, _ interval: Duration) -> RepeatedTask {
        let delay = TimeAmount(interval)
        return loop.scheduleRepeatedTask(initialDelay: delay, delay: delay) { _ in
            self.refresh()
        }
    }

    /// The weak fix: the closure captures `self` weakly and cancels its task once it is gone.
    private func refreshWeakly(on loop: any EventLoop, _ interval: Duration) -> RepeatedTask {
        let delay = TimeAmount(interval)
        return loop.scheduleRepeatedTask(initialDelay: delay, delay: delay) { [weak self] task in
            guard let self else {
                task.cancel()
                return
            }
            self.refresh()
        }
    }

    /// The leak: the `Task` captures `self` and sleeps in a loop that only cancellation ends.
    private func refreshStronglyInTask(_ interval: Duration) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                self.refresh()
            }
        }
    }

    /// The weak fix: the `Task` captures `self` weakly and returns once it is gone.
    private func refreshWeaklyInTask(_ interval: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self else { return }
                self.refresh()
            }
        }
    }
}
