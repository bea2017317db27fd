/**
 * Queries the pipeline refuses, with the 0-based position the error points at and what the
 * message says. `stage` is where it is caught: the parser (syntax, limits) or the analyzer
 * (fields and values, for a process search unless `index` says otherwise).
 */
import type { QueryErrorCode } from './errors.js';

export interface RejectedCase {
  readonly query: string;
  readonly code: QueryErrorCode;
  readonly position: number;
  readonly message: RegExp;
  readonly index?: 'process' | 'binary';
}

export const REJECTED: readonly RejectedCase[] = [
  // Syntax
  { query: '(filemod:*.exe or filemod:*.dll', code: 'syntax', position: 0, message: /Unbalanced "\(" that is never closed/ },
  { query: 'process_name:x)', code: 'syntax', position: 14, message: /Unbalanced "\)"/ },
  { query: 'a (', code: 'syntax', position: 2, message: /Unbalanced "\(" that is never closed/ },
  { query: 'a (b OR c', code: 'syntax', position: 2, message: /never closed/ },
  { query: 'a OR', code: 'syntax', position: 2, message: /Expected a term after OR/ },
  { query: 'OR a', code: 'syntax', position: 0, message: /Expected a term before OR/ },
  { query: 'a AND AND b', code: 'syntax', position: 2, message: /Expected a term after AND/ },
  { query: 'a AND', code: 'syntax', position: 2, message: /after AND/ },
  { query: 'a -', code: 'syntax', position: 2, message: /Expected a term after -/ },
  { query: 'NOT', code: 'syntax', position: 0, message: /after NOT/ },
  { query: '-)', code: 'syntax', position: 0, message: /after -/ },
  { query: '()', code: 'syntax', position: 0, message: /Empty parentheses/ },
  { query: 'process_name:', code: 'syntax', position: 0, message: /Missing value after "process_name:"/ },
  { query: 'a process_name: ', code: 'syntax', position: 2, message: /Missing value/ },
  { query: '(process_name:)', code: 'syntax', position: 1, message: /Missing value/ },
  { query: '"unterminated', code: 'syntax', position: 0, message: /Unterminated phrase/ },
  { query: 'cmdline:"c:\\program files\\"', code: 'syntax', position: 8, message: /Unterminated phrase.*literal quote/ },
  { query: '[1 TO 5]', code: 'syntax', position: 0, message: /A range needs a field/ },
  { query: 'start:[2013-01-01 TO ', code: 'syntax', position: 21, message: /Expected a range bound/ },
  { query: 'start:[2013-01-01 TO', code: 'syntax', position: 18, message: /Expected " TO "/ },
  { query: 'start:[1 TO 5', code: 'syntax', position: 13, message: /Expected "\]" to close the range opened at position 6/ },
  { query: 'start:[1 5]', code: 'syntax', position: 9, message: /Expected " TO "/ },
  { query: 'start:[1TO 5]', code: 'syntax', position: 11, message: /Expected " TO "/ },
  { query: 'start:[]', code: 'syntax', position: 7, message: /Expected a range bound/ },
  { query: 'cmdline:[System.Text.Encoding]::UTF8', code: 'syntax', position: 29, message: /Expected " TO ".*quote a value that starts with "\["/ },
  { query: 'md5:(process_name:x)', code: 'syntax', position: 5, message: /Field "process_name" inside the group of field "md5"/ },
  { query: 'md5:()', code: 'syntax', position: 4, message: /Empty parentheses/ },
  // Limits
  { query: 'a'.repeat(65_537), code: 'too_large', position: 65_536, message: /longer than 65536 characters/ },
  { query: `${'('.repeat(70)}a${')'.repeat(70)}`, code: 'too_large', position: 64, message: /nested deeper than 64/ },
  { query: `${'-'.repeat(70)}a`, code: 'too_large', position: 64, message: /nested deeper than 64/ },
  { query: 'process_name:a '.repeat(2_049), code: 'too_large', position: 15 * 2_048 + 13, message: /more than 2048 conditions.*name the field/ },
  { query: `cmdline:"${'a '.repeat(2_049)}"`, code: 'too_large', position: 8, message: /more than 2048 conditions/ },
  // Fields
  { query: 'disig_issuer:verisign', code: 'unknown_field', position: 0, message: /Unknown field "disig_issuer".*did you mean "digsig_issuer"/ },
  { query: 'process_name:x url:y', code: 'unknown_field', position: 15, message: /Unknown field "url"/ },
  { query: 'http://evil.example', code: 'unknown_field', position: 0, message: /Unknown field "http"/ },
  { query: 'cmdline:x', code: 'unknown_field', position: 0, message: /not searchable in binary search/, index: 'binary' },
  { query: 'digsig_result_parent:Signed', code: 'unknown_field', position: 0, message: /not searchable in binary search/, index: 'binary' },
  { query: 'is_64bit:true username:x', code: 'unknown_field', position: 14, message: /"username" is not searchable in binary/, index: 'binary' },
  { query: 'process_name_parent:x', code: 'unknown_field', position: 0, message: /Unknown field "process_name_parent"/ },
  { query: 'watchlist_abc:*', code: 'unknown_field', position: 0, message: /Unknown field/ },
  // Values
  { query: 'md5:d41d8cd98f00b204e9800998ecf8427', code: 'invalid_value', position: 4, message: /Expected 32 hexadecimal digits for field "md5"/ },
  { query: 'sha256:xyz*', code: 'invalid_value', position: 7, message: /64 hexadecimal digits/ },
  { query: 'start:yesterday', code: 'invalid_value', position: 6, message: /Expected a date/ },
  { query: 'start:2024-13-01', code: 'invalid_value', position: 6, message: /Expected a date/ },
  { query: 'start:[2024-01-01 TO later]', code: 'invalid_value', position: 6, message: /Expected a date/ },
  { query: 'ipaddr:300.1.1.1', code: 'invalid_value', position: 7, message: /IPv4 address/ },
  { query: 'ipaddr:10.0.0.0/33', code: 'invalid_value', position: 7, message: /netmask is 0 to 32/ },
  { query: 'ipaddr:4294967296', code: 'invalid_value', position: 7, message: /between -2147483648 and 4294967295/ },
  { query: 'ipv6addr:fe80::1/129', code: 'invalid_value', position: 9, message: /IPv6 prefix/ },
  { query: 'ipv6addr:fe80:::1', code: 'invalid_value', position: 9, message: /IPv6 address/ },
  { query: 'ipaddr:[10.0.0.1 TO fe80::1]', code: 'invalid_value', position: 7, message: /IPv6/ },
  { query: 'is_64bit:maybe', code: 'invalid_value', position: 9, message: /Expected true or false/ },
  { query: 'digsig_result:Signd', code: 'invalid_value', position: 14, message: /Expected one of "signed", "unsigned"/ },
  { query: 'crossproc_type:inject', code: 'invalid_value', position: 15, message: /"processopen"/ },
  { query: 'process_name:[a TO b]', code: 'invalid_value', position: 13, message: /A range needs a number, date or address field; this is a keyword field/ },
  { query: 'netconn_count:ten', code: 'invalid_value', position: 14, message: /Expected a whole number/ },
  { query: 'netconn_count:1*', code: 'invalid_value', position: 14, message: /whole number/ },
  { query: 'process_id:18446744073709551616', code: 'invalid_value', position: 11, message: /64-bit/ },
  { query: 'domain:foo..com', code: 'invalid_value', position: 7, message: /no empty labels/ },
  { query: 'domain:foo/bar', code: 'invalid_value', position: 7, message: /letters, digits/ },
  { query: 'path:\\\\', code: 'invalid_value', position: 5, message: /Expected a path/ },
];
