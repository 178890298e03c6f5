// Healthy and leaked instances of the same types, mixed (issue 31): 100 watchers of which 97
// sit in a global registry and 3 were removed from it but keep themselves alive through their
// own callback (a cycle nothing holds); and leases of a pool, of which the pool keeps one as
// `current` and each `lease N` line on standard input makes N more, all but one leaked the same
// way (each lease's `onDisconnect` captures it). Answers each line with `leased TOTAL`.
// And 40 orders, each in a three-type cycle (order → shipment → invoice → order): 36 held by a
// global book (a cycle a holder reaches is no leak) and 4 dropped from it, and 10 shipments
// outside any cycle.
import FixtureSupport

final class Watcher {
    let id: Int
    var onChange: (() -> Void)?
    init(id: Int) { self.id = id }
}

final class PooledLease {
    let id: Int
    var onDisconnect: (() -> Void)?
    init(id: Int) { self.id = id }
}

final class Pool {
    var current: PooledLease?
    var made = 0

    /// Makes `count` leases: the last becomes `current`, the others forget to break their
    /// cycle.
    func lease(_ count: Int) {
        for index in 0..<count {
            let lease = PooledLease(id: made)
            made += 1
            if index == count - 1 {
                current = lease
            } else {
                lease.onDisconnect = { _ = lease.id }
            }
        }
    }
}

final class Order {
    var shipment: Shipment?
}

final class Shipment {
    var invoice: Invoice?
}

final class Invoice {
    var order: Order?
}

nonisolated(unsafe) var registry: [Watcher] = []
nonisolated(unsafe) var book: [Order] = []
nonisolated(unsafe) var looseShipments: [Shipment] = []
nonisolated(unsafe) let pool = Pool()

for id in 0..<100 {
    let watcher = Watcher(id: id)
    if id % 33 == 32 {
        watcher.onChange = { _ = watcher.id }  // removed from the registry, but keeps itself
    } else {
        registry.append(watcher)
    }
}
pool.lease(1)
/// Makes the orders in a frame of its own, so that no stale word of main's frame names one.
func makeOrders() {
    for index in 0..<40 {
        let order = Order()
        let shipment = Shipment()
        let invoice = Invoice()
        order.shipment = shipment
        shipment.invoice = invoice
        invoice.order = order
        if index % 10 != 4 { book.append(order) }  // orders 4, 14, 24 and 34 leak
    }
    for _ in 0..<10 { looseShipments.append(Shipment()) }
}
makeOrders()
announceReady("\(registry.count)")
while let line = readLine() {
    if line.hasPrefix("lease "), let count = Int(line.dropFirst(6)) {
        pool.lease(count)
        say("leased \(pool.made)")
    }
}
runForever()
