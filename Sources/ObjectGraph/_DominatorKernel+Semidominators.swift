// Semidominators by preorder number, over unsafe pointers (see `_DominatorKernel.swift` for
// why, and for the measurements).

/// The predecessor rows the semidominator loop reads, and the loop itself. Index arithmetic
/// wraps (`&+`, `&*`): every index is below a buffer's room by construction, and the overflow
/// checks were a tenth of the instructions.
///
/// A strong edge from number `u` to number `w` (numbers from ``DominatorSearch``) is a tree
/// edge, a forward edge (`u < w`: `u` is an ancestor of `w`, so `u` is a candidate as it
/// stands), a self loop, or a back or cross edge (`u > w`), the only kind whose candidate needs
/// the link-eval forest. Only those are sorted into rows.
enum DominatorSemidominators {
    /// Sorts the search's non-tree edges: a forward edge lowers `semi` of its target at once;
    /// back and cross edges go to `rows`, grouped by target number.
    ///
    /// - Parameters:
    ///   - nonTree: `kept` pairs `[holder's number, target node]`, overwritten.
    ///   - number: Per reached node, its preorder number.
    ///   - semi: Per number, the candidates so far (the parent's number).
    ///   - rowStart: Room for `count + 1` words; on return, where each number's row starts in
    ///     `rows` (row `w` ends where row `w + 1` starts).
    ///   - rows: Room for the back and cross edges (at most `kept`); on return, their holders.
    ///   - cursor: Room for `count` words of scratch.
    static func sortPredecessors(
        count: Int, nonTree: UnsafeMutablePointer<UInt32>, kept: Int,
        number: UnsafeMutablePointer<UInt32>, semi: UnsafeMutablePointer<UInt32>,
        rowStart: UnsafeMutablePointer<UInt32>, rows: UnsafeMutablePointer<UInt32>,
        cursor: UnsafeMutablePointer<UInt32>
    ) {
        rowStart.initialize(repeating: 0, count: count + 1)
        // Classify in place: back and cross edges move to the front as [target, holder].
        var crossing = 0
        var edge = 0
        while edge < kept {
            let holder = nonTree[2 &* edge]
            let target = number[Int(nonTree[2 &* edge &+ 1])]
            edge &+= 1
            if target > holder {
                if holder < semi[Int(target)] { semi[Int(target)] = holder }
            } else if target < holder {
                nonTree[2 &* crossing] = target
                nonTree[2 &* crossing &+ 1] = holder
                crossing &+= 1
                rowStart[Int(target) &+ 1] &+= 1
            }
        }
        var position = 0
        while position < count {
            rowStart[position &+ 1] &+= rowStart[position]
            cursor[position] = rowStart[position]
            position &+= 1
        }
        edge = 0
        while edge < crossing {
            let row = Int(nonTree[2 &* edge])
            rows[Int(cursor[row])] = nonTree[2 &* edge &+ 1]
            cursor[row] &+= 1
            edge &+= 1
        }
    }

    /// Computes each number's semidominator into `semi`, in decreasing preorder, evaluating
    /// back and cross edges over the link-eval forest with path halving.
    ///
    /// The forest is implicit: a number is linked to its parent once processed, that is when
    /// it is greater than the one being processed, so `links` starts as the parent numbers
    /// and no separate "linked" mark is read. `links` holds two words per number, `[2v]` its
    /// forest ancestor and `[2v + 1]` the smallest semidominator on the path from `v` up to
    /// (not including) that ancestor: one cache line serves both. Evaluating walks up from the
    /// holder, pointing each node it passes at its grandparent (path halving, Tarjan and van
    /// Leeuwen): one pass, no path stack, and on the 1M-node benchmark graph 83 M instructions
    /// where full path compression took 136–142 M, with the same semidominators.
    ///
    /// - Parameters:
    ///   - semi: Per number, on entry the candidates of its tree and forward edges; on return
    ///     its semidominator.
    ///   - links: Room for `2 * count` words.
    static func semidominators(
        count: Int, parent: UnsafeMutablePointer<UInt32>, semi: UnsafeMutablePointer<UInt32>,
        rowStart: UnsafeMutablePointer<UInt32>, rows: UnsafeMutablePointer<UInt32>,
        links: UnsafeMutablePointer<UInt32>
    ) {
        var position = 0
        while position < count {
            links[2 &* position] = parent[position]
            links[2 &* position &+ 1] = semi[position]
            position &+= 1
        }
        var current = count &- 1
        while current > 0 {
            var best = semi[current]
            let limit = UInt32(truncatingIfNeeded: current)
            var slot = Int(rowStart[current])
            let end = Int(rowStart[current &+ 1])
            while slot < end {
                var node = 2 &* Int(rows[slot])
                slot &+= 1
                while true {
                    let up = links[node]
                    if up <= limit {
                        // `node` hangs from an unprocessed number: its label covers the rest.
                        let label = links[node &+ 1]
                        if label < best { best = label }
                        break
                    }
                    let above = 2 &* Int(up)
                    let upUp = links[above]
                    var label = links[node &+ 1]
                    let aboveLabel = links[above &+ 1]
                    if aboveLabel < label {
                        label = aboveLabel
                        links[node &+ 1] = label
                    }
                    links[node] = upUp
                    if label < best { best = label }
                    if upUp <= limit { break }
                    node = 2 &* Int(upUp)
                }
            }
            semi[current] = best
            links[2 &* current &+ 1] = best
            current &-= 1
        }
    }
}
