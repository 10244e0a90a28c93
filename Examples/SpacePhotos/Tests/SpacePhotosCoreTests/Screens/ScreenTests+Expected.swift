/// The screens as a person sees them (trailing spaces trimmed).
extension ScreenTests {
    static let loginInFlight = """




                    ╭ Log in to SpacePhotos ───────────────────────────────╮
                    │                                                      │
                    │  ID        astro                                     │
                    │                                                      │
                    │  Password  •••••••••••                               │
                    │                                                      │
                    │            [ Logging in… ⠋ ]                         │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    ╰──────────────────────────────────────────────────────╯





         Esc cancel · Ctrl-C quit
        """

    static let loginLockedOut = """




                    ╭ Log in to SpacePhotos ───────────────────────────────╮
                    │                                                      │
                    │  ID        astro                                     │
                    │                                                      │
                    │  Password  •••••                                     │
                    │                                                      │
                    │            [ Log in ]                                │
                    │                                                      │
                    │  Too many attempts. Try again in 30 seconds.         │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    │                                                      │
                    ╰──────────────────────────────────────────────────────╯





         Tab ↑↓ next field · Enter log in · Ctrl-C quit
        """

    static let emptyToDos = """
         SpacePhotos  1 Photos   2 Saved   3 To-dos   4 Counter   5 Profile
        ────────────────────────────────────────────────────────────────────────────────
        ╭ To-dos (0) ──────────────────────────────────────────────────────────────────╮
        │ Find: press / to search                                                      │
        │                                                                              │
        │ Nothing to do. Press a to add a to-do.                                       │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │ New:  press a to add a to-do                                                 │
        ╰──────────────────────────────────────────────────────────────────────────────╯

         ↑↓ PgUp PgDn select · a add · Enter e edit · d delete · Tab 1-5 tabs · q quit
        """

    static let tenThousandToDosAtTheEnd = """
         SpacePhotos  1 Photos   2 Saved   3 To-dos   4 Counter   5 Profile
        ────────────────────────────────────────────────────────────────────────────────
        ╭ To-dos (10000) ──────────────────────────────────────────────────────────────╮
        │ Find: press / to search                                                      │
        │                                                                              │
        │ #9987   To-do number 9987                                                    │
        │ #9988   To-do number 9988                                                    │
        │ #9989   To-do number 9989                                                    │
        │ #9990   To-do number 9990                                                    │
        │ #9991   To-do number 9991                                                    │
        │ #9992   To-do number 9992                                                    │
        │ #9993   To-do number 9993                                                    │
        │ #9994   To-do number 9994                                                    │
        │ #9995   To-do number 9995                                                    │
        │ #9996   To-do number 9996                                                    │
        │ #9997   To-do number 9997                                                    │
        │ #9998   To-do number 9998                                                    │
        │ #9999   To-do number 9999                                                    │
        │ #10000  To-do number 10000                                                   │
        │                                                                              │
        │ New:  press a to add a to-do                                                 │
        ╰──────────────────────────────────────────────────────────────────────────────╯

         ↑↓ PgUp PgDn select · a add · Enter e edit · d delete · Tab 1-5 tabs · q quit
        """

    static let searchingToDos = """
         SpacePhotos  1 Photos   2 Saved   3 To-dos   4 Counter   5 Profile
        ────────────────────────────────────────────────────────────────────────────────
        ╭ To-dos (11 matching) ────────────────────────────────────────────────────────╮
        │ Find: NUMBER 999                                                             │
        │                                                                              │
        │ #999   To-do number 999                                                      │
        │ #9990  To-do number 9990                                                     │
        │ #9991  To-do number 9991                                                     │
        │ #9992  To-do number 9992                                                     │
        │ #9993  To-do number 9993                                                     │
        │ #9994  To-do number 9994                                                     │
        │ #9995  To-do number 9995                                                     │
        │ #9996  To-do number 9996                                                     │
        │ #9997  To-do number 9997                                                     │
        │ #9998  To-do number 9998                                                     │
        │ #9999  To-do number 9999                                                     │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │ New:  press a to add a to-do                                                 │
        ╰──────────────────────────────────────────────────────────────────────────────╯

         ↑↓ select · Enter back to the list · Esc clear the search
        """

    static let counterRefreshing = """
         SpacePhotos  1 Photos   2 Saved   3 To-dos   4 Counter   5 Profile
        ────────────────────────────────────────────────────────────────────────────────
        ╭ Counter ─────────────────────────────────────────────────────────────────────╮
        │                                                                              │
        │                                                                              │
        │                                  −   2   +                                   │
        │                                                                              │
        │                                                                              │
        │                   ⠸ Fetching a fact about 2… (Esc cancels)                   │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        │                                                                              │
        ╰──────────────────────────────────────────────────────────────────────────────╯

         Esc cancel · + − count · Tab 1-5 tabs · q quit
        """

    static let photoSaving = """
         SpacePhotos  1 Photos   2 Saved   3 To-dos   4 Counter   5 Profile
        ────────────────────────────────────────────────────────────────────────────────
        ╭ Photos ──────────────────────╮╭ Photo 1 ─────────────────────────────────────╮
        │ 3 photos                     ││                                              │
        │                              ││                                              │
        │ ⠋ 1970-01-02  Photo 1        ││                                              │
        │   1970-01-03  Photo 2        ││                                              │
        │   1970-01-04  Photo 3        ││                                              │
        │                              ││                                              │
        │                              ││             ⠋ Loading the image…             │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││ 1970-01-02  ☆ – (not live)                   │
        │                              ││ The description of photo 1.                  │
        │                              ││                                              │
        │                              ││                                              │
        │                              ││ [ Saving… ⠋ ]                                │
        ╰──────────────────────────────╯╰──────────────────────────────────────────────╯

         ↑↓ PgUp PgDn select · s save · f favourite · r refresh · Tab 1-5 tabs · q quit
        """

    static let tooSmall = """



           The terminal is 40×10; SpacePhotos
         needs at least 64×20. Make the window
            larger, or press Ctrl-C to quit.




        """
}
