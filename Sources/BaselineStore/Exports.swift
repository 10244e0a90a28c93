// Actions are enums whose cases a reducer reaches by key path
// (`Scope(state: \.counter, action: \.counter)`): `@CasePathable` and
// `CaseKeyPath` come with BaselineStore, as they do with TCA.
@_exported import CasePaths
