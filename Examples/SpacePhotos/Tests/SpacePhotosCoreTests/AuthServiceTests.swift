import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@testable import spacephotos

@Suite("AuthService", .timeLimit(.minutes(2)))
struct AuthServiceTests {
    let directory: TemporaryDirectory
    let store: IDTokenStore
    let logIn = ControllableCall<Credentials, IDToken>()
    let member = ControllableCall<IDToken, User>()
    let logs = LogRecorder()
    let service: AuthService

    init() throws {
        directory = try TemporaryDirectory()
        store = IDTokenStore(fileURL: directory.url.appendingPathComponent("id-token.json"))
        let logIn = self.logIn
        let member = self.member
        service = AuthService(
            logIn: { id, password in try await logIn(Credentials(id: id, password: password)) },
            member: { token in try await member(token) },
            store: store,
            logger: logs.logger()
        )
    }

    @Test func aLoginStoresTheToken() async throws {
        let service = self.service
        let attempt = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "pw") }
        try await logIn.nextCall().resume(returning: IDToken(rawValue: "t-1"))
        try await attempt.value
        #expect(try await store.load() == IDToken(rawValue: "t-1"))
        #expect(!logs.text.contains("t-1"))
        #expect(!logs.text.contains("pw"))
    }

    @Test func aSecondLoginWhileOneIsInFlightIsRejectedAndNeverSent() async throws {
        let service = self.service
        let first = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "pw") }
        let call = try await logIn.nextCall()

        await #expect(throws: AuthServiceError.loginInProgress) {
            try await service.logIn(for: User.ID(rawValue: "astro"), with: "pw")
        }
        #expect(logIn.callCount == 1)

        call.resume(returning: IDToken(rawValue: "t-1"))
        try await first.value
        #expect(try await store.load() == IDToken(rawValue: "t-1"))
    }

    @Test func aFailedLoginStoresNothingAndAllowsTheNextAttempt() async throws {
        let service = self.service
        let first = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "wrong") }
        try await logIn.nextCall().resume(throwing: LoginError.invalidCredentials)
        await #expect(throws: LoginError.invalidCredentials) { try await first.value }
        #expect(try await store.load() == nil)

        let second = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "right") }
        try await logIn.nextCall().resume(returning: IDToken(rawValue: "t-2"))
        try await second.value
        #expect(logIn.calls.map(\.password) == ["wrong", "right"])
    }

    @Test func aCancelledLoginAllowsTheNextAttempt() async throws {
        let service = self.service
        let first = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "pw") }
        _ = try await logIn.nextCall()
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }

        let second = Task { try await service.logIn(for: User.ID(rawValue: "astro"), with: "pw") }
        try await logIn.nextCall().resume(returning: IDToken(rawValue: "t-3"))
        try await second.value
        #expect(try await store.load() == IDToken(rawValue: "t-3"))
    }

    @Test func theCurrentMemberIsFetchedWithTheStoredToken() async throws {
        try await store.update(IDToken(rawValue: "stored"))
        let service = self.service
        let lookup = Task { try await service.currentMember() }
        let call = try await member.nextCall()
        #expect(call.arguments == IDToken(rawValue: "stored"))
        let astro = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 0))
        call.resume(returning: astro)
        #expect(try await lookup.value == astro)
    }

    @Test func withoutATokenThereIsNoMember() async throws {
        await #expect(throws: SessionError.notLoggedIn) { try await service.currentMember() }
        #expect(member.callCount == 0)
    }

    @Test func loggingOutClearsTheToken() async throws {
        try await store.update(IDToken(rawValue: "stored"))
        try await service.logOut()
        #expect(try await store.load() == nil)
    }
}
