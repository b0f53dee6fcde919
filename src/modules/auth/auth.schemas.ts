import { Type, type Static } from 'typebox';
import { OTP_PURPOSES, SELF_REGISTRATION_ROLES } from '../../db/schema/users.js';
import { EmailSchema, IdSchema, MessageSchema, Ok, PhoneSchema, StringEnum } from '../../shared/schemas.js';
import { PasswordSchema, UserSchema } from '../users/index.js';

const strict = { additionalProperties: false } as const;
const CodeSchema = Type.String({ pattern: '^[0-9]{6}$', description: 'the 6-digit code received' });
const PurposeSchema = StringEnum(OTP_PURPOSES);
// Login passwords are only compared, never judged: an old account may predate today's rules.
const LoginPasswordSchema = Type.String({ minLength: 1, maxLength: 128 });

export const RegisterResultSchema = Type.Object(
  { userId: IdSchema, phoneNumber: Type.String() },
  { title: 'Registration' },
);
export const LoginBodySchema = Type.Object({ phoneNumber: PhoneSchema, password: LoginPasswordSchema }, strict);
export const EmailLoginBodySchema = Type.Object({ email: EmailSchema, password: LoginPasswordSchema }, strict);
export const VerifyOtpBodySchema = Type.Object(
  { phoneNumber: PhoneSchema, code: CodeSchema, purpose: PurposeSchema },
  strict,
);
export const VerifyEmailOtpBodySchema = Type.Object(
  { email: EmailSchema, code: CodeSchema, purpose: PurposeSchema },
  strict,
);
export const ResendOtpBodySchema = Type.Object({ phoneNumber: PhoneSchema, purpose: PurposeSchema }, strict);
export const ResendEmailOtpBodySchema = Type.Object({ email: EmailSchema, purpose: PurposeSchema }, strict);
const phoneOrEmail = {
  phoneNumber: Type.Optional(PhoneSchema),
  email: Type.Optional(EmailSchema),
};
export const ForgotPasswordBodySchema = Type.Object(phoneOrEmail, {
  ...strict,
  description: 'exactly one of phoneNumber or email',
});
export const ResetPasswordBodySchema = Type.Object(
  { ...phoneOrEmail, code: CodeSchema, newPassword: PasswordSchema },
  { ...strict, description: 'exactly one of phoneNumber or email, where the code was sent' },
);
export const ChangePasswordBodySchema = Type.Object(
  { currentPassword: LoginPasswordSchema, newPassword: PasswordSchema },
  strict,
);
export const RefreshBodySchema = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 4096 }) }, strict);
export const IdpLoginBodySchema = Type.Object(
  {
    idToken: Type.String({ minLength: 1, maxLength: 8192 }),
    role: Type.Optional(
      StringEnum(SELF_REGISTRATION_ROLES, { description: 'role of a new account; CLIENT when absent' }),
    ),
  },
  strict,
);
export const IdTokenBodySchema = Type.Object({ idToken: Type.String({ minLength: 1, maxLength: 8192 }) }, strict);

export const TokenPairSchema = Type.Object(
  { accessToken: Type.String(), refreshToken: Type.String() },
  { title: 'TokenPair' },
);
export const AuthResultSchema = Type.Object(
  { user: UserSchema, accessToken: Type.String(), refreshToken: Type.String() },
  { title: 'AuthResult' },
);
export const IdpResultSchema = Type.Object(
  { ...AuthResultSchema.properties, isNewUser: Type.Boolean() },
  { title: 'IdpAuthResult' },
);
export const VerifyResultSchema = Type.Object(
  {
    verified: Type.Literal(true),
    user: Type.Optional(UserSchema),
    accessToken: Type.Optional(Type.String()),
    refreshToken: Type.Optional(Type.String()),
  },
  { title: 'OtpVerification' },
);
export const IdentitySchema = Type.Object(
  { provider: Type.String(), subject: Type.String(), email: Type.Union([Type.String(), Type.Null()]) },
  { title: 'LinkedIdentity' },
);

export type ForgotPasswordBody = Static<typeof ForgotPasswordBodySchema>;
export type ResetPasswordBody = Static<typeof ResetPasswordBodySchema>;
export type AuthResult = Static<typeof AuthResultSchema>;
export type VerifyResult = Static<typeof VerifyResultSchema>;
export const OkMessage = Ok(MessageSchema);
