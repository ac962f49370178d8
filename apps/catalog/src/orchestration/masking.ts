/**
 * Masking of secret values in what an execution records (request line, headers, body and response
 * excerpts, error details). Each secret is masked in its raw form and in the encodings it commonly
 * travels in: JSON string escaping, URL encoding (component, form, and a URL parser's own query and
 * path encoding), and base64 / base64url — the
 * latter at all three byte alignments, so a secret embedded in a longer encoded text (e.g. HTTP
 * Basic `user:secret`) is masked too.
 */

/** What a masked secret looks like. */
export const MASK = '\u2022\u2022\u2022\u2022';

/** Base64 text a secret contributes when it starts `offset` bytes into the encoded data (characters fixed by it alone). */
function base64Core(bytes: Buffer, offset: number, url: boolean): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
  let encoded = padded.toString(url ? 'base64url' : 'base64').replace(/=+$/, '');
  // Characters mixing in bits of the zero prefix, or of whatever follows the secret, are not fixed by it.
  const head = Math.ceil((offset * 8) / 6);
  const totalBits = padded.length * 8;
  const tail = totalBits % 6 === 0 ? 0 : 1;
  encoded = encoded.slice(head, encoded.length - tail);
  return encoded;
}

/** The forms of `secret` to mask, longest first; fragments shorter than 4 characters are left out of the partial base64 forms. */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const forms = new Set<string>([secret]);
  forms.add(JSON.stringify(secret).slice(1, -1));
  forms.add(encodeURIComponent(secret));
  forms.add(encodeURI(secret));
  forms.add(new URLSearchParams({ s: secret }).toString().slice(2));
  // How a URL parser (and so the HTTP client) re-encodes a raw value in a query or a path.
  forms.add(new URL(`http://h/?${secret}`).search.slice(1));
  forms.add(new URL(`http://h/${secret}`).pathname.slice(1));
  const bytes = Buffer.from(secret, 'utf8');
  forms.add(bytes.toString('base64'));
  forms.add(bytes.toString('base64url'));
  for (const url of [false, true]) {
    for (let offset = 0; offset < 3; offset++) {
      const core = base64Core(bytes, offset, url);
      if (core.length >= 4) forms.add(core);
    }
  }
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** A function masking every form of every secret in `secrets` (a no-op when there are none). */
export function createMasker(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  };
}
