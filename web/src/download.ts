/** Fetches a file from the API and hands it to the browser as a download, so a pasted token works as well as the session cookie. */
import { ApiError, credential } from './api.js';

export async function downloadFile(path: string, filename: string): Promise<void> {
  const who = credential();
  const headers: Record<string, string> = who?.kind === 'token' ? { 'x-auth-token': who.secret } : {};
  const response = await fetch(path, { headers, credentials: 'same-origin' });
  if (!response.ok) throw new ApiError(response.status, 'download_failed', `The download failed (HTTP ${response.status}).`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
