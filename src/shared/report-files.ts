/** The signed statement's name inside the PDF (it cannot list its own hash, so verify never matches it against itself). */
export const STATEMENT_ATTACHMENT = 'report.statement.json';
