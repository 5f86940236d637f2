import { createCipheriv, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { subkey } from '../../../src/kernel/keys.js';
import { decryptLegacySecret, decryptSecret, encryptSecret, isLegacySealed } from '../../../src/modules/webhooks/crypto.js';

describe('kernel/keys and sealed webhook secrets', () => {
  const serverKey = Buffer.alloc(32, 7);

  it('each purpose has its own subkey, none equal to the server key, the same on every call', () => {
    const cursors = subkey(serverKey, 'cursor-signing');
    const secrets = subkey(serverKey, 'webhook-secrets');
    expect(cursors).to.have.length(32);
    expect(cursors.equals(secrets)).to.equal(false);
    expect(cursors.equals(serverKey) || secrets.equals(serverKey)).to.equal(false);
    expect(subkey(serverKey, 'cursor-signing').equals(cursors)).to.equal(true);
    expect(subkey(Buffer.alloc(32, 8), 'cursor-signing').equals(cursors)).to.equal(false);
  });

  it('a sealed secret opens only for its own subscription, with the webhook-secrets subkey', () => {
    const key = subkey(serverKey, 'webhook-secrets');
    const sealed = encryptSecret(key, 'whk_a', 'whsec_abc');
    expect(sealed.startsWith('v2.')).to.equal(true);
    expect(isLegacySealed(sealed)).to.equal(false);
    expect(decryptSecret(key, 'whk_a', sealed)).to.equal('whsec_abc');
    // Copied onto another subscription, or opened with another key: refused.
    expect(() => decryptSecret(key, 'whk_b', sealed)).to.throw();
    expect(() => decryptSecret(serverKey, 'whk_a', sealed)).to.throw();
    expect(() => decryptSecret(subkey(serverKey, 'cursor-signing'), 'whk_a', sealed)).to.throw();
  });

  it('reads the form written before subkeys (the server key, no id bound), and only that way', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', serverKey, iv);
    const body = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
    const legacy = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    expect(isLegacySealed(legacy)).to.equal(true);
    expect(decryptLegacySecret(serverKey, legacy)).to.equal('whsec_old');
    expect(() => decryptSecret(subkey(serverKey, 'webhook-secrets'), 'whk_a', legacy)).to.throw();
  });
});
