import type { ParsedInput } from '../../shared/api';
export type { BuiltReport } from '../../shared/api/reports';
export type OperationInputReportsBuild = ParsedInput<'reports.build'>;
