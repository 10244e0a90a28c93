import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

/// The app's store on the fixture's dependencies, as the terminal and a
/// SwiftUI app make it: every tab and the session together.
@MainActor
@Suite("App store", .timeLimit(.minutes(2)))
struct AppStoreTests {
    let fixture = AppFixture()

    func makeApp() async throws -> Store<AppFeature.State, AppFeature.Action> {
        AppFeature.store(try await fixture.dependencies())
    }

    /// The presented login screen's store, as a screen gets it.
    func loginStore(
        _ app: Store<AppFeature.State, AppFeature.Action>
    ) throws -> Store<
        LoginFeature.State, LoginFeature.Action
    > {
        let login = app.scope(state: \.login, action: \.login)
        return try #require(login)
    }

    @Test func theSessionServiceIsTheAppsOwn() async throws {
        let app = try await makeApp()
        #expect(app.screen == .launching)
        await app.send(.start).finish()
        #expect(app.screen == .login)
        #expect(app.login == LoginFeature.State())
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        await app.send(.start).finish()
        #expect(app.screen == .main)
    }

    @Test func eachSessionGetsAFreshProfileOnThePhotosTab() async throws {
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.send(.start).finish()
        let firstProfile = try #require(app.profile)
        let loading = try #require(app.scope(state: \.profile, action: \.profile)).send(.load)
        await loading.finish()
        #expect(app.profile?.id == firstProfile.id, "the same session keeps its profile")
        #expect(app.profile?.fact != nil)
        app.binding(\.tab.value).value = .profile
        await app.send(.logOutButtonTapped).finish()
        #expect(fixture.logOuts.current == 1)
        #expect(app.screen == .login)
        #expect(app.profile == nil, "the session's profile goes with it")
        let login = try loginStore(app)
        #expect(login.id.isEmpty && login.password.isEmpty)
        // Typed through the bound fields, as a screen does.
        login.binding(\.id).value = "luna"
        login.binding(\.password).value = "moonwalk-1969"
        let pressed = login.send(.loginButtonTapped)
        let call = try await fixture.auth.logIn.nextCall()
        #expect(call.arguments == Credentials(id: User.ID(rawValue: "luna"), password: "moonwalk-1969"))
        #expect(app.screen == .login)
        call.resume()
        await pressed.finish()
        #expect(app.screen == .main)
        #expect(app.login == nil)
        #expect(app.profile?.id != firstProfile.id)
        #expect(app.profile?.fact == nil, "a fresh profile, not the last member's")
        #expect(app.tab.value == .profile, "the tab is kept, as between launches")
    }

    @Test func quittingAsksFirstWhileAPhotoIsBeingSaved() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.send(.start).finish()
        app.send(.quitTapped)
        #expect(app.quit == .confirmed, "nothing in flight: quit at once")
        app.send(.quitCancelled)
        app.send(.saved(.photos(.start)))  // the main screen's `.task`
        await app.send(.photos(.catalog(.updateItems))).finish()
        let photo = try #require(app.photos.selectedPhoto)
        let saving = app.send(.saved(.toggleSave(photo)))
        // Saving, and held there: every download of the image is.
        #expect(app.saved.isSaving(photo))
        app.send(.quitTapped)
        #expect(app.isConfirmingQuit)
        app.send(.quitCancelled)
        #expect(!app.isConfirmingQuit)
        app.send(.quitTapped)
        #expect(app.isConfirmingQuit)
        // The save fails (a 404, which no one retries): the question goes with it.
        let failing = downloads.answerEach(with: .success(StubResponse(status: .notFound)))
        await saving.finish()
        failing.cancel()
        #expect(!app.isConfirmingQuit, "the save it warned about is over")
        #expect(!app.saved.isSaved(photo))

        // Saving the same photo again does not bring the old question back.
        let retry = app.send(.saved(.toggleSave(photo)))
        #expect(app.saved.isSaving(photo))
        #expect(!app.isConfirmingQuit)
        let answering = downloads.answerEach(with: .success(StubResponse(body: AppFixture.pngBytes)))
        defer { answering.cancel() }
        await retry.finish()
        // Checked first: a failed save would leave the wait below waiting.
        try #require(app.saved.errorMessage == nil)
        try await waitUntil(app) { $0.saved.isSaved(photo) }
        app.send(.quitTapped)
        #expect(app.quit == .confirmed)
    }

    @Test func quittingAnywayDropsTheRunningSaves() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let dependencies = try await fixture.dependencies()
        let app = AppFeature.store(dependencies)
        await app.send(.start).finish()
        await app.send(.photos(.catalog(.updateItems))).finish()
        let photo = try #require(app.photos.selectedPhoto)
        let saving = app.send(.saved(.toggleSave(photo)))
        let call = try await downloads.calls.nextCall()
        app.send(.quitTapped)
        #expect(app.isConfirmingQuit)
        app.send(.quitConfirmed)
        #expect(app.quit == .confirmed)
        await saving.finish()
        #expect(call.isCancelled, "the save's download is cancelled")
        #expect(app.saved.saves.isEmpty)
        #expect(try await dependencies.savedPhotos.all().isEmpty)
    }
}

/// The Photos tab in the app's store.
@MainActor
@Suite("PhotoBrowser", .timeLimit(.minutes(2)))
struct PhotoBrowserTests {
    let fixture = AppFixture()

    @Test func aRefreshSelectsTheFirstPhotoAndKeepsASelectionStillListed() async throws {
        let app = AppFeature.store(try await fixture.dependencies())
        let browser = app.scope(state: \.photos, action: \.photos)
        await browser.send(.catalog(.updateItems)).finish()
        #expect(browser.selectedPhoto == fixture.photos[0])
        browser.send(.moveSelection(by: 2))
        #expect(browser.selectedIndex == 2)
        browser.send(.moveSelection(by: 5))
        #expect(browser.selectedIndex == 2, "stops at the end")
        await browser.send(.catalog(.updateItems)).finish()
        #expect(browser.selectedPhoto == fixture.photos[2])
    }

    @Test func theSaveButtonSavesThenUnsavesAndIsDisabledWhileSaving() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        let app = AppFeature.store(try await fixture.dependencies())
        app.send(.saved(.photos(.start)))
        await app.send(.photos(.catalog(.updateItems))).finish()
        let photo = try #require(app.photos.selectedPhoto)
        #expect(!app.saved.isSaving(photo))
        let saving = app.send(.saved(.toggleSave(photo)))
        #expect(app.saved.isSaving(photo))
        app.send(.saved(.toggleSave(photo)))  // disabled while saving: nothing happens
        #expect(app.saved.lastSave == 1)
        let answering = downloads.answerEach(with: .success(StubResponse(body: AppFixture.pngBytes)))
        defer { answering.cancel() }
        await saving.finish()
        try await waitUntil(app) { $0.saved.isSaved(photo) }
        #expect(!app.saved.isSaving(photo))
        await app.send(.saved(.toggleSave(photo))).finish()
        try await waitUntil(app) { !$0.saved.isSaved(photo) }
    }

    @Test func theImageShownBelongsToTheSelectedPhoto() async throws {
        fixture.images.on(.get, "/images/photo-1.png", respond: StubResponse(status: .notFound))
        let dependencies = try await fixture.dependencies()
        let app = AppFeature.store(dependencies)
        let image = ImageLoader(pipeline: dependencies.pipeline)  // the view's own
        await app.send(.photos(.catalog(.updateItems))).finish()
        await image.load(app.photos.selectedPhoto.map { ImageRequest($0.url, size: 80) })
        #expect(image.url == fixture.photos[0].url)
        #expect(image.phase.error != nil)
        app.send(.photos(.moveSelection(by: 1)))
        #expect(image.url != app.photos.selectedPhoto?.url, "the phase is the previous photo's until its load starts")
    }
}
