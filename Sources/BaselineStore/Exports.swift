// Actions are enums whose cases a reducer reaches by key path
// (`Scope(state: \.counter, action: \.counter)`): `@CasePathable` and
// `CaseKeyPath` come with BaselineStore, as they do with TCA.
@_exported import CasePaths

// A shared value's key (`.sharing(\.tab, action: \.tab, key)`) is a type a
// feature names; it lives in BaselineConcurrency so that BaselinePersistence
// can make file and row keys without depending on the store.
@_exported import struct BaselineConcurrency.SharedKey
