/// Migration v13: a budget's thresholds (issue 39, `BudgetThresholds`), as the file's v22: text
/// like `80,100`, the default every budget made before keeps.
extension PostGISSchema {
    static let budgetThresholds = Migration(identifier: "v13: budget thresholds", sql: """
        ALTER TABLE budgets ADD COLUMN thresholds text NOT NULL DEFAULT '80,100' CHECK (length(thresholds) BETWEEN 1 AND 60);
        """)
}
