import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('configuration', () => {
  it('applies defaults on a bare environment', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.ACCESS_TOKEN_TTL_SECONDS).toBe(900);
    expect(c.REFRESH_TOKEN_TTL_SECONDS).toBe(604_800);
    expect(c.SMS_PROVIDER).toBe('log');
  });

  it('names each bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', RATE_LIMIT_MAX: '0' })).toThrow(
      /PORT: must be integer[\s\S]*LOG_LEVEL: must be one of fatal[\s\S]*RATE_LIMIT_MAX/,
    );
  });

  it('refuses to start in production without secrets or with log-only messaging', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_ACCESS_SECRET: required in production/);
    const secrets = { JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), OTP_SECRET: 'c'.repeat(40) };
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets })).toThrow(/SMS_PROVIDER/);
    const ok = loadConfig({
      NODE_ENV: 'production',
      ...secrets,
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+15005550006',
      EMAIL_PROVIDER: 'smtp',
      SMTP_URL: 'smtp://mail.example:587',
      PUSH_PROVIDER: 'fcm',
      FCM_PROJECT_ID: 'foodsave',
      FCM_CREDENTIALS: JSON.stringify({ client_email: 'push@foodsave.iam.gserviceaccount.com', private_key: 'k' }),
    });
    expect(ok.JWT_ACCESS_SECRET).toBe('a'.repeat(40));
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets, SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+1500', EMAIL_PROVIDER: 'smtp', SMTP_URL: 'smtp://m:587' })).toThrow(/PUSH_PROVIDER: "log"/);
  });

  it('requires the settings of a chosen adapter', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'twilio' })).toThrow(/TWILIO_ACCOUNT_SID: required/);
    expect(() => loadConfig({ EMAIL_PROVIDER: 'smtp' })).toThrow(/SMTP_URL: required/);
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm' })).toThrow(/FCM_PROJECT_ID: required[\s\S]*FCM_CREDENTIALS: required/);
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm', FCM_PROJECT_ID: 'p', FCM_CREDENTIALS: '{"client_email":1}' })).toThrow(/FCM_CREDENTIALS: must be/);
    expect(() => loadConfig({ IDP_ISSUER: 'https://idp' })).toThrow(/set all three or none/);
    expect(() => loadConfig({ JWT_ACCESS_SECRET: 'short' })).toThrow(/JWT_ACCESS_SECRET/);
  });
});
