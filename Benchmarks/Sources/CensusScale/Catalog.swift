// The object graph CensusScale builds: a catalog of sections of items, with references of
// every kind the census reads (class fields, strong and weak; array elements; dictionary
// values; closure captures), held by a global variable.

/// The root: held by the global `catalog`.
final class Catalog {
    var sections: [Section] = []
    var byID: [Int: Section] = [:]
}

/// A section: its items in an array, some of them in a dictionary too, and a closure that
/// captures a chain of items nothing else holds.
final class Section {
    let id: Int
    var items: [Item] = []
    var lookup: [Int: Item] = [:]
    var onChange: (() -> Int)?

    init(id: Int) { self.id = id }
}

/// An item: the next item of its section (a class field), and its section (weak).
final class Item {
    let id: Int
    var next: Item?
    weak var section: Section?

    init(id: Int, section: Section?) {
        self.id = id
        self.section = section
    }
}

/// Holds the whole graph.
nonisolated(unsafe) var catalog: Catalog?

/// Builds `sections` sections of `itemsPerSection` items, then a chain of `chainLength` items
/// captured by the last section's closure, and returns the chain's last item: the object
/// whose holders CensusScale asks for (reachable only through the chain).
///
/// Objects made: per section 1 + items + array storage + dictionary storage + closure context;
/// plus the catalog, its array and dictionary storage, and the chain.
func buildCatalog(sections: Int, itemsPerSection: Int, chainLength: Int) -> Item {
    let root = Catalog()
    root.sections.reserveCapacity(sections)
    for sectionID in 0..<sections {
        let section = Section(id: sectionID)
        section.items.reserveCapacity(itemsPerSection)
        section.lookup.reserveCapacity(itemsPerSection / 4 + 1)
        var previous: Item?
        for itemID in 0..<itemsPerSection {
            let item = Item(id: sectionID * itemsPerSection + itemID, section: section)
            previous?.next = item
            previous = item
            section.items.append(item)
            if itemID % 4 == 0 { section.lookup[item.id] = item }
        }
        let first = section.items.first
        section.onChange = { first?.id ?? -1 }
        root.sections.append(section)
        root.byID[sectionID] = section
    }
    // The deep target: the end of a chain only the last section's closure reaches.
    let head = Item(id: -1, section: nil)
    var tail = head
    for link in 1..<max(chainLength, 1) {
        let item = Item(id: -1 - link, section: nil)
        tail.next = item
        tail = item
    }
    if let last = root.sections.last {
        let first = last.items.first
        last.onChange = { (first?.id ?? 0) + head.id }
    }
    catalog = root
    return tail
}
