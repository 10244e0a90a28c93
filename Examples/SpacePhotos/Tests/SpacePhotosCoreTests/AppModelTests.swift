import BaselineConcurrency
import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

@MainActor
@Suite("AppModel", .timeLimit(.minutes(1)))
struct AppModelTests {
    let fixture = AppFixture()

    func makeApp() async throws -> AppModel {
        AppModel(dependencies: try await fixture.dependencies())
    }

    /// The presented login screen's store, as a screen gets it.
    func loginStore(_ app: AppModel) throws -> Store<LoginFeature.State, LoginFeature.Action> {
        let login = app.store.scope(state: \.login, action: \.login)
        return try #require(login)
    }

    @Test func theSessionServiceIsTheAppsOwn() async throws {
        let app = try await makeApp()
        #expect(app.store.screen == .launching)
        await app.store.send(.start).finish()
        #expect(app.store.screen == .login)
        #expect(app.store.login == LoginFeature.State())
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        await app.store.send(.start).finish()
        #expect(app.store.screen == .main)
    }

    @Test func eachSessionGetsAFreshProfileOnThePhotosTab() async throws {
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.store.send(.start).finish()
        let firstProfile = app.profile
        #expect(app.profile === firstProfile, "the same session keeps its profile")
        app.store.binding(\.tab).value = .profile
        await app.store.send(.logOutButtonTapped).finish()
        #expect(fixture.logOuts.current == 1)
        #expect(app.store.screen == .login)
        let login = try loginStore(app)
        #expect(login.id.isEmpty && login.password.isEmpty)
        // Typed through the bound fields, as a screen does.
        login.binding(\.id).value = "luna"
        login.binding(\.password).value = "moonwalk-1969"
        let pressed = login.send(.loginButtonTapped)
        let call = try await fixture.auth.logIn.nextCall()
        #expect(call.arguments == Credentials(id: User.ID(rawValue: "luna"), password: "moonwalk-1969"))
        #expect(app.store.screen == .login)
        call.resume()
        await pressed.finish()
        #expect(app.store.screen == .main)
        #expect(app.store.login == nil)
        #expect(app.profile !== firstProfile)
        #expect(app.store.tab == .photos)
    }

    @Test func quittingAsksFirstWhileAPhotoIsBeingSaved() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.store.send(.start).finish()
        #expect(app.requestQuit(), "nothing in flight: quit at once")
        // The list without its prefetch: a prefetch still downloading the
        // image could be joined by a later save and hand it its answer.
        await app.photos.catalog.updateItems()
        app.photos.select(app.photos.catalog.items.first?.id)
        let photo = try #require(app.photos.selectedPhoto)
        let saving = Task { await app.photos.toggleSaveSelected() }
        // Saving, and held there: every download of the image is.
        try await waitUntil(app.photos) { $0.isSelectedSaving }
        #expect(app.hasWorkInFlight)
        #expect(app.requestQuit() == false)
        #expect(app.isConfirmingQuit)
        app.cancelQuit()
        #expect(!app.isConfirmingQuit)
        #expect(app.requestQuit() == false)
        // The save fails (a 404, which no one retries): the question goes with it.
        let failing = downloads.answerEach(with: .success(StubResponse(status: .notFound)))
        await saving.value
        failing.cancel()
        #expect(!app.isConfirmingQuit, "the save it warned about is over")
        #expect(!app.photos.saved.isSaved(photo))

        // Saving the same photo again does not bring the old question back.
        let retry = Task { await app.photos.toggleSaveSelected() }
        try await waitUntil(app.photos) { $0.isSelectedSaving }
        #expect(!app.isConfirmingQuit)
        let answering = downloads.answerEach(with: .success(StubResponse(body: AppFixture.pngBytes)))
        defer { answering.cancel() }
        await retry.value
        // Checked first: a failed save would leave the wait below waiting.
        try #require(app.photos.saved.errorMessage == nil)
        try await waitUntil(app.photos.saved) { $0.isSaved(photo) }
        #expect(app.requestQuit())
    }
}

@MainActor
@Suite("PhotoBrowser", .timeLimit(.minutes(1)))
struct PhotoBrowserTests {
    let fixture = AppFixture()

    @Test func aRefreshSelectsTheFirstPhotoAndKeepsASelectionStillListed() async throws {
        let app = AppModel(dependencies: try await fixture.dependencies())
        let browser = app.photos
        await browser.refresh()
        #expect(browser.selectedPhoto == fixture.photos[0])
        browser.moveSelection(by: 2)
        #expect(browser.selectedIndex == 2)
        browser.moveSelection(by: 5)
        #expect(browser.selectedIndex == 2, "stops at the end")
        await browser.refresh()
        #expect(browser.selectedPhoto == fixture.photos[2])
    }

    @Test func theSaveButtonSavesThenUnsavesAndIsDisabledWhileSaving() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        let app = AppModel(dependencies: try await fixture.dependencies())
        let browser = app.photos
        await browser.refresh()
        #expect(browser.canToggleSave)
        let saving = Task { await browser.toggleSaveSelected() }
        try await waitUntil(browser) { $0.isSelectedSaving }
        #expect(!browser.canToggleSave)
        let answering = downloads.answerEach(with: .success(StubResponse(body: AppFixture.pngBytes)))
        defer { answering.cancel() }
        await saving.value
        try await waitUntil(browser) { $0.isSelectedSaved }
        #expect(browser.canToggleSave)
        await browser.toggleSaveSelected()
        try await waitUntil(browser) { !$0.isSelectedSaved }
    }

    @Test func theImageShownBelongsToTheSelectedPhoto() async throws {
        fixture.images.on(.get, "/images/photo-1.png", respond: StubResponse(status: .notFound))
        let app = AppModel(dependencies: try await fixture.dependencies())
        let browser = app.photos
        await browser.refresh()
        await browser.loadSelectedImage()
        #expect(browser.image.url == fixture.photos[0].url)
        #expect(browser.image.phase.error != nil)
        browser.moveSelection(by: 1)
        #expect(
            browser.image.url != browser.selectedPhoto?.url,
            "the phase is the previous photo's until its load starts"
        )
    }
}
