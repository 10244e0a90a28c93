import BaselineStore

/// The Photos tab: the catalog, and the selected photo.
///
/// ```swift
/// List(store.catalog.items, selection: Binding(store.binding(\.selection.id))) { Text($0.title) }
///     .task { await store.send(.catalog(.updateItems)).finish() }
///     .refreshable { await store.send(.catalog(.updateItems)).finish() }
/// AsyncImageView(request: store.selectedPhoto.map { ImageRequest($0.url, size: 600) })
/// ```
///
/// A new list keeps the selection when it still has that photo, else
/// selects the first. Saving the selected photo is ``SavedPhotos``'s (the
/// Saved tab's) work: the button sends it `.toggleSave(photo)`. The image is
/// the view's to load (an `ImageLoader` per view, as `AsyncImage` keeps its own).
public struct PhotoBrowser: Reducer {
    /// What the Photos tab shows.
    public struct State: Equatable, Sendable {
        /// The list of photos.
        public var catalog: PhotoCatalog.State
        /// The selected photo (bound).
        public var selection: ListSelection<SpacePhoto.ID>

        /// An empty tab, with nothing selected until the first list arrives.
        public init(
            catalog: PhotoCatalog.State = PhotoCatalog.State(),
            selection: ListSelection<SpacePhoto.ID> = .init()
        ) {
            self.catalog = catalog
            self.selection = selection
        }

        /// The selected photo, if it is in the list.
        public var selectedPhoto: SpacePhoto? {
            selectedIndex.map { catalog.items[$0] }
        }

        /// The selected photo's position in the list.
        public var selectedIndex: Int? {
            selection.index(in: catalog.items)
        }
    }

    /// What the Photos tab can do.
    @CasePathable
    public enum Action: BindableAction, Equatable, Sendable {
        /// The selection changed (bound).
        case binding(BindingAction<State>)
        /// The catalog's actions: loading, and what loads answer.
        case catalog(PhotoCatalog.Action)
        /// Moves the selection by rows (negative is up), stopping at the ends.
        case moveSelection(by: Int)
    }

    let catalog: PhotoCatalog

    /// The tab over `catalog`.
    public init(catalog: PhotoCatalog) {
        self.catalog = catalog
    }

    /// The catalog first, then the selection, which follows the list it left.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Scope(state: \.catalog, action: \.catalog) { catalog }
        Reduce { state, action in
            switch action {
            case .catalog(.loaded):
                if state.selectedPhoto == nil { state.selection.id = state.catalog.items.first?.id }
            case let .moveSelection(offset):
                state.selection.move(by: offset, in: state.catalog.items)
            case .binding, .catalog:
                break
            }
            return .none
        }
    }
}
