import SpacePhotosCore
import Testing

/// The one selection rule every list shares.
@Suite("ListSelection")
struct ListSelectionTests {
    struct Row: Identifiable, Equatable {
        let id: Int
    }

    let rows = (1...4).map(Row.init)

    @Test func movesStopAtTheEndsAndStartFromNothing() {
        var selection = ListSelection<Int>()
        selection.move(by: 1, in: rows)
        #expect(selection.id == 1, "one step down from nothing selects the first")
        selection.move(by: 2, in: rows)
        #expect(selection.id == 3)
        selection.move(by: Int(Int32.max), in: rows)
        #expect(selection.id == 4, "End")
        selection.move(by: -Int(Int32.max), in: rows)
        #expect(selection.id == 1, "Home")
        selection.move(by: .min, in: rows)
        #expect(selection.id == 1, "an offset that overflows stops at the end")
        var empty = ListSelection<Int>()
        empty.move(by: 1, in: [Row]())
        #expect(empty.id == nil)
    }

    @Test func theRowBelowTakesTheSelectionOfARemovedRow() {
        var selection = ListSelection(2)
        selection.removing(2, from: rows)
        #expect(selection.id == 3)
        selection = ListSelection(4)
        selection.removing(4, from: rows)
        #expect(selection.id == 3, "the last row's goes up")
        selection = ListSelection(1)
        selection.removing(1, from: [Row(id: 1)])
        #expect(selection.id == nil, "the only row's goes")
        selection = ListSelection(1)
        selection.removing(3, from: rows)
        #expect(selection.id == 1, "another row's removal keeps it")
    }

    @Test func aSelectionNotListedIsKept() {
        let selection = ListSelection(9)
        #expect(selection.index(in: rows) == nil)
        #expect(selection.id == 9)
    }
}
