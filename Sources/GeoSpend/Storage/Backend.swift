/// A whole backend: the seam (`ExpenseStore`) and every aggregate beside it. `SpatiaLiteStore`
/// and `PostGISStore` are each one; the CLI (`DatabaseOptions.openBackend`) and the service
/// (`buildRouter`) take one, so a new aggregate's protocol is added here, once
/// (docs/ARCHITECTURE.md § Adding a per-user table).
public typealias Backend = ExpenseStore & UserDataStore & ExpenseEditing & CategoryEditing & PeriodStore & BudgetStore & TokenStore
    & PriceStore & ReceiptStore & ShoppingListStore & PositionStore & UserSettingsStore & NotificationStore & RecurringStore
    & UserProfileStore & PantryStore & CommunityStore & ProductStore & StoreChoiceStore
