/**
 * Golden parses: query text → syntax tree (positions left out). Examples from the reference
 * (the user guides and published third-party queries), grouped by the rule they show.
 */

type Node = Record<string, unknown>;

const term = (field: string | null, value: string): Node => ({ kind: 'term', field, value, quoted: false });
const phrase = (field: string | null, value: string): Node => ({ kind: 'term', field, value, quoted: true });
const exists = (field: string): Node => ({ kind: 'exists', field });
const bound = (value: string | null) => (value === null ? null : { value, quoted: false });
const range = (field: string, lower: string | null, upper: string | null): Node => ({ kind: 'range', field, lower: bound(lower), upper: bound(upper) });
const and = (...children: Node[]): Node => ({ kind: 'and', children });
const or = (...children: Node[]): Node => ({ kind: 'or', children });
const not = (child: Node): Node => ({ kind: 'not', child });
const all: Node = { kind: 'all' };

export const GOLDEN_PARSES: readonly (readonly [string, Node])[] = [
  // Terms, fields, default fields (§1)
  ['svchost.exe', term(null, 'svchost.exe')],
  ['process_name:svchost.exe', term('process_name', 'svchost.exe')],
  ['Process_Name:svchost.exe', term('process_name', 'svchost.exe')],
  ['microsoft office\\office15\\powerpnt.exe', and(term(null, 'microsoft'), term(null, 'office\\office15\\powerpnt.exe'))],
  ['c:\\windows\\system32\\foo.exe', term(null, 'c:\\windows\\system32\\foo.exe')],
  ['host_type:"domain_controller"', phrase('host_type', 'domain_controller')],
  ['', all],
  ['   ', all],
  ['*', all],
  ['*:*', all],
  // Phrases
  ['"svchost.exe cmd.exe"', phrase(null, 'svchost.exe cmd.exe')],
  ['path:"microsoft office\\office15\\powerpnt.exe"', phrase('path', 'microsoft office\\office15\\powerpnt.exe')],
  ['"-system.exe"', phrase(null, '-system.exe')],
  ['digsig_result:"Invalid Chain"', phrase('digsig_result', 'Invalid Chain')],
  ['process_name:\u201Ccmd.exe\u201D', phrase('process_name', 'cmd.exe')],
  ['\u201Cvisual studio"', phrase(null, 'visual studio')],
  // Escapes, and backslashes that are path separators
  ['path:microsoft\\ office\\office15\\powerpnt.exe', term('path', 'microsoft office\\office15\\powerpnt.exe')],
  ['c:\\program\\ files\\ \\(x86\\)\\windows', term(null, 'c:\\program files (x86)\\windows')],
  ['cmdline:"\\"c:\\program files \\(x86\\)\\google\\update\\googleupdate.exe\\" /svc"',
    phrase('cmdline', '"c:\\program files (x86)\\google\\update\\googleupdate.exe" /svc')],
  ['cmdline:\\"c:\\program\\ files\\ \\(x86\\)\\google\\update\\googleupdate.exe\\"\\ /svc',
    term('cmdline', '"c:\\program files (x86)\\google\\update\\googleupdate.exe" /svc')],
  ['digsig_result:"Explicit\\ Distrust"', phrase('digsig_result', 'Explicit Distrust')],
  ['modload:c:\\windows\\system32\\sxs.dll', term('modload', 'c:\\windows\\system32\\sxs.dll')],
  ['regmod:registry\\machine\\system\\currentcontrolset\\services\\xkzc', term('regmod', 'registry\\machine\\system\\currentcontrolset\\services\\xkzc')],
  ['-path:c:\\windows\\*', not(term('path', 'c:\\windows\\*'))],
  ['cmdline:\\\\test\\blah', term('cmdline', '\\test\\blah')],
  ['ab\\:cd', term(null, 'ab:cd')],
  ['path:c:\\temp\\', term('path', 'c:\\temp\\')],
  // Colons inside values need no escape
  ['cmdline:http:\\', term('cmdline', 'http:\\')],
  ['modload:http://example.com/a.dll', term('modload', 'http://example.com/a.dll')],
  ['ipv6addr:fe00:b9:266:2011::0/50', term('ipv6addr', 'fe00:b9:266:2011::0/50')],
  ['ipv6addr:::1', term('ipv6addr', '::1')],
  ['regmod:\\registry\\machine\\system\\controlset001\\control\\deviceclasses\\{53f56307-b6bf-11d0-94f2-00a0c91efb8b}\\*',
    term('regmod', '\\registry\\machine\\system\\controlset001\\control\\deviceclasses\\{53f56307-b6bf-11d0-94f2-00a0c91efb8b}\\*')],
  ['cmdline:%appdata%$^|&\'/x', term('cmdline', '%appdata%$^|&\'/x')],
  // A space after the colon binds the value to the field
  ['cmdline: dcsync', term('cmdline', 'dcsync')],
  ['filemod: c:\\windows\\temp\\*.bat', term('filemod', 'c:\\windows\\temp\\*.bat')],
  ['product_name: "visual studio"', phrase('product_name', 'visual studio')],
  ['(netconn_count: [1 TO *])', range('netconn_count', '1', null)],
  // Operators in any case, negation, grouping (§2)
  ['a and b', and(term(null, 'a'), term(null, 'b'))],
  ['a AND b OR c', or(and(term(null, 'a'), term(null, 'b')), term(null, 'c'))],
  ['a or b', or(term(null, 'a'), term(null, 'b'))],
  ['a Or b oR c', or(term(null, 'a'), term(null, 'b'), term(null, 'c'))],
  ['a OR b c', or(term(null, 'a'), and(term(null, 'b'), term(null, 'c')))],
  ['(a OR b) c', and(or(term(null, 'a'), term(null, 'b')), term(null, 'c'))],
  ['((a))', term(null, 'a')],
  ['-svchost.exe', not(term(null, 'svchost.exe'))],
  ['- svchost.exe', not(term(null, 'svchost.exe'))],
  ['-alliance_score_srstrust:*', not(exists('alliance_score_srstrust'))],
  ['-(username:SYSTEM)', not(term('username', 'SYSTEM'))],
  ['NOT a', not(term(null, 'a'))],
  ['a not b', and(term(null, 'a'), not(term(null, 'b')))],
  ['a AND NOT b', and(term(null, 'a'), not(term(null, 'b')))],
  ['--a', not(not(term(null, 'a')))],
  ['process_name:a-b', term('process_name', 'a-b')],
  ['process_name:and', term('process_name', 'and')],
  ['domain:.ru -process_name:iexplore.exe OR -process_name:chrome.exe',
    or(and(term('domain', '.ru'), not(term('process_name', 'iexplore.exe'))), not(term('process_name', 'chrome.exe')))],
  ['(process_name:cmd.exe or crossproc_name:cmd.exe) or md5:blah and last_update:-5m',
    or(or(term('process_name', 'cmd.exe'), term('crossproc_name', 'cmd.exe')), and(term('md5', 'blah'), term('last_update', '-5m')))],
  ['process_name:cmd.exe(cmdline:x)', and(term('process_name', 'cmd.exe'), term('cmdline', 'x'))],
  // Field groups
  ['md5:(a b c)', and(term('md5', 'a'), term('md5', 'b'), term('md5', 'c'))],
  ['group:("Default Group" OR servers)', or(phrase('group', 'Default Group'), term('group', 'servers'))],
  ['process_name:(-cmd.exe *)', and(not(term('process_name', 'cmd.exe')), exists('process_name'))],
  ['start:([2020-01-01 TO *])', range('start', '2020-01-01', null)],
  // Wildcards (§3)
  ['process_name:win*.exe', term('process_name', 'win*.exe')],
  ['path:system*', term('path', 'system*')],
  ['filemod:*/system32/ntdll.dll', term('filemod', '*/system32/ntdll.dll')],
  ['cmdline:power?hell', term('cmdline', 'power?hell')],
  ['netconn_count:*', exists('netconn_count')],
  ['watchlist_3381:*', exists('watchlist_3381')],
  ['process_name:"*"', phrase('process_name', '*')],
  // Ranges (§4)
  ['modload_count:[1 TO 10]', range('modload_count', '1', '10')],
  ['netconn_count:[10 TO *]', range('netconn_count', '10', null)],
  ['childproc_count:[* TO 10]', range('childproc_count', null, '10')],
  ['start:[2013-01-01 TO *]', range('start', '2013-01-01', null)],
  ['start:[* TO *]', range('start', null, null)],
  ['start:[2013-12-01T22:15:00 TO 2013-12-01:23:14:59]', range('start', '2013-12-01T22:15:00', '2013-12-01:23:14:59')],
  ['watchlist_4:[2014-04-01 TO 2014-09-31]', range('watchlist_4', '2014-04-01', '2014-09-31')],
  ['ipaddr:[-1056964608 TO -1]', range('ipaddr', '-1056964608', '-1')],
  ['ipaddr:[169.254.0.0 TO 169.254.255.255]', range('ipaddr', '169.254.0.0', '169.254.255.255')],
  ['ipv6addr:[fe80::0:0:0:0 TO fe80::ffff:ffff:ffff:ffff]', range('ipv6addr', 'fe80::0:0:0:0', 'fe80::ffff:ffff:ffff:ffff')],
  ['netconn_count:[ 1   to 5 ]', range('netconn_count', '1', '5')],
  ['netconn_count:[1 TO 5]process_name:x', and(range('netconn_count', '1', '5'), term('process_name', 'x'))],
  ['alliance_score_srstrust:[50 TO *]', range('alliance_score_srstrust', '50', null)],
  ['start:["2020-01-01" TO *]', { kind: 'range', field: 'start', lower: { value: '2020-01-01', quoted: true }, upper: null }],
  // Dates, numbers, addresses, booleans as written
  ['start:-24h', term('start', '-24h')],
  ['start:-1440m', term('start', '-1440m')],
  ['ipaddr:192.168.0.0/16', term('ipaddr', '192.168.0.0/16')],
  ['ipaddr:-2080555708', term('ipaddr', '-2080555708')],
  ['is_executable_image:"true"', phrase('is_executable_image', 'true')],
  ['is_64bit:True', term('is_64bit', 'True')],
  ['digsig_result_modload:Unsigned', term('digsig_result_modload', 'Unsigned')],
  ['(md5:5a18f00ab9330ac7539675f3f326cf11 md5:1cfc6ea3c2d8b3a4b2e5a1e6c7a9f0d1)',
    and(term('md5', '5a18f00ab9330ac7539675f3f326cf11'), term('md5', '1cfc6ea3c2d8b3a4b2e5a1e6c7a9f0d1'))],
];
