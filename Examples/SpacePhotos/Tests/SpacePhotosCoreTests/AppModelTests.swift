import BaselineConcurrency
import BaselineHTTP
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

    @Test func withoutAStoredSessionTheLoginScreenShows() async throws {
        let app = try await makeApp()
        #expect(app.screen == .launching)
        await app.start()
        #expect(app.screen == .login)
        #expect(app.login != nil)
        #expect(app.loginNotice == nil)
    }

    @Test func aStoredSessionTheServerAcceptsGoesStraightIn() async throws {
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.start()
        #expect(app.screen == .main)
        #expect(app.login == nil)
        #expect(app.tab == .photos)
    }

    @Test func anUnreachableServerCanBeRetried() async throws {
        fixture.sessions.withLock {
            $0 = [
                .failure(HTTPClientError.transport(underlying: URLError(.cannotConnectToHost))),
                .success(fixture.member),
            ]
        }
        let app = try await makeApp()
        await app.start()
        guard case let .unavailable(message) = app.screen else {
            Issue.record("expected the unavailable screen, got \(app.screen)")
            return
        }
        #expect(message.contains("cannot be reached"))
        #expect(fixture.logOuts.current == 0, "an unreachable server is no reason to forget the session")
        await app.start()
        #expect(app.screen == .main)
    }

    @Test func aRefreshThatCannotReachTheServerIsUnreachableToo() async throws {
        let refresh = HTTPClientError.authenticationFailed(
            .refreshFailed(underlying: LoginError.networkUnreachable(reason: "refused"))
        )
        fixture.sessions.withLock { $0 = [.failure(refresh)] }
        let app = try await makeApp()
        await app.start()
        #expect(app.screen == .unavailable("The server cannot be reached (refused). Check that it runs, then retry."))
    }

    @Test func aServerErrorAtLaunchKeepsTheSession() async throws {
        let failure = HTTPClientError.unacceptableStatus(HTTPResponse(status: .serviceUnavailable), body: Data())
        fixture.sessions.withLock { $0 = [.failure(failure), .success(fixture.member)] }
        let app = try await makeApp()
        await app.start()
        guard case let .unavailable(message) = app.screen else {
            Issue.record("expected the unavailable screen, got \(app.screen)")
            return
        }
        #expect(message.hasPrefix("The server could not check your session"))
        #expect(fixture.logOuts.current == 0)
        await app.start()
        #expect(app.screen == .main)
    }

    @Test func aSessionTheServerRefusesIsForgottenAndTheLoginScreenSaysWhy() async throws {
        let refused = HTTPClientError.authenticationFailed(.refreshFailed(underlying: LoginError.invalidCredentials))
        fixture.sessions.withLock { $0 = [.failure(refused)] }
        let app = try await makeApp()
        await app.start()
        #expect(app.screen == .login)
        #expect(fixture.logOuts.current == 1)
        #expect(app.loginNotice == "Your session has ended. Log in again.")
    }

    @Test func aSuccessfulLoginDismissesTheLoginScreen() async throws {
        let app = try await makeApp()
        await app.start()
        let login = try #require(app.login)
        login.id = "astro"
        login.password = "stardust-42"
        let pressed = Task { await login.loginButtonPressed() }
        let call = try await fixture.auth.logIn.nextCall()
        #expect(app.screen == .login)
        call.resume()
        await pressed.value
        try await waitUntil(app) { $0.screen == .main }
        #expect(app.login == nil)
    }

    @Test func loggingOutForgetsTheSessionAndShowsAFreshLoginScreen() async throws {
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.start()
        let firstProfile = app.profile
        app.tab = .profile
        await app.logOut()
        #expect(fixture.logOuts.current == 1)
        #expect(app.screen == .login)
        let login = try #require(app.login)
        #expect(login.id.isEmpty && login.password.isEmpty)
        // The next login starts a new profile, on the Photos tab.
        login.id = "luna"
        login.password = "moonwalk-1969"
        let pressed = Task { await login.loginButtonPressed() }
        try await fixture.auth.logIn.nextCall().resume()
        await pressed.value
        try await waitUntil(app) { $0.screen == .main }
        #expect(app.profile !== firstProfile)
        #expect(app.tab == .photos)
    }

    @Test func quittingAsksFirstWhileAPhotoIsBeingSaved() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        fixture.sessions.withLock { $0 = [.success(fixture.member)] }
        let app = try await makeApp()
        await app.start()
        #expect(app.requestQuit(), "nothing in flight: quit at once")
        await app.photos.refresh()
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
        let answering = downloads.answerEach(with: .success(StubResponse(body: AppFixture.pngBytes)))
        defer { answering.cancel() }
        await saving.value
        try await waitUntil(app.photos.saved) { $0.isSaved(photo) }
        #expect(!app.isConfirmingQuit, "the save it warned about is done")
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
