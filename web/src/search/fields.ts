/**
 * Field names for completion in the query boxes: the query language's catalogue (the server's
 * src/query/fields.ts, reference §6). The server stays the judge: a name missing here is still
 * accepted there, and a wrong one is refused there with its position.
 */
const PROCESS = [
  'process_name', 'process_md5', 'process_sha256', 'process_id', 'process_pid', 'parent_name', 'parent_md5',
  'parent_sha256', 'parent_id', 'parent_pid', 'path', 'cmdline', 'username', 'hostname', 'group', 'host_type',
  'os_type', 'sensor_id', 'start', 'last_update', 'last_server_update', 'childproc_count', 'crossproc_count',
  'filemod_count', 'modload_count', 'netconn_count', 'regmod_count', 'tampered', 'md5', 'sha256',
  'filemod', 'filewrite_md5', 'filewrite_sha256', 'modload', 'regmod', 'domain', 'ipaddr', 'ipv6addr', 'ipport',
  'ja3', 'ja3s', 'childproc_name', 'childproc_md5', 'childproc_sha256', 'crossproc_name', 'crossproc_md5',
  'crossproc_sha256', 'crossproc_type', 'blocked_md5', 'blocked_status',
];

const BINARY = [
  'md5', 'sha256', 'observed_filename', 'company_name', 'copied_mod_len', 'orig_mod_len', 'digsig_issuer',
  'digsig_prog_name', 'digsig_publisher', 'digsig_subject', 'digsig_result', 'digsig_sign_time', 'file_desc',
  'file_version', 'internal_name', 'legal_copyright', 'legal_trademark', 'original_filename', 'private_build',
  'special_build', 'product_desc', 'product_name', 'product_version', 'comments', 'hostname', 'group', 'host_count',
];

export const FIELD_NAMES = { process: PROCESS, binary: BINARY } as const;

/**
 * Completions of the word being typed at the end of `text` as whole texts (what a datalist
 * offers): "cmdline:x proc" → ["cmdline:x process_name:", …]. None once the word has a colon.
 */
export function completions(text: string, fields: readonly string[]): string[] {
  const start = Math.max(text.lastIndexOf(' '), text.lastIndexOf('(')) + 1;
  const word = text.slice(start).replace(/^-/, '');
  if (!word || word.includes(':')) return [];
  const head = text.slice(0, text.length - word.length);
  return fields.filter((name) => name.startsWith(word.toLowerCase()) && name !== word).slice(0, 12).map((name) => `${head}${name}:`);
}
