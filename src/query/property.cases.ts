/**
 * Pieces that random query text is built from in the property tests (property.test.ts for the
 * pipeline alone, process-search.property.test.ts over HTTP): field names of every kind, operators
 * in both cases, brackets, quotes, escapes and values of each type, so that joining a few gives
 * text close to what people type and to where the grammar has edges.
 */
export const QUERY_PIECES: readonly string[] = [
  'process_name:', 'cmdline:', 'md5:', 'sha256:', 'start:', 'ipaddr:', 'ipv6addr:', 'domain:', 'path:', 'regmod:',
  'digsig_result_parent:', 'watchlist_1:', 'alliance_score_tor:', 'netconn_count:', 'is_64bit:', 'crossproc_type:',
  'process_id:', 'company_name:', 'unknown_field:', ' ', '  ', ' AND ', ' and ', ' OR ', ' or ', 'NOT ', '-', '(', ')',
  '[', ']', ' TO ', '*', '?', '"', '\u201C', '\u201D', '\\', '\\ ', '\\"', ':', 'a', 'svchost.exe', 'c:\\windows\\',
  '10.0.0.1', '/16', '-1', '-24h', '2024-01-01', 'T10:00:00', 'fe80::1', 'true', '.com', '.', 'processopen', '0', '42',
  'd41d8cd98f00b204e9800998ecf8427e', 'Signed',
];
