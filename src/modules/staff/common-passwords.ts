// Commonly used passwords of 10 characters or more, in lower case (a new password is compared in
// lower case): keyboard runs, digit runs and word-plus-digits forms of the kind that head the public
// lists of leaked passwords, and a few a venue's staff would guess first. Short ones need no entry:
// the length rule refuses them already.
// A small list on purpose (docs/decisions.md): it stops the guesses tried first, not every weak one.
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '1234567890', '0123456789', '0987654321', '9876543210', '1111111111', '0000000000', '1234512345', '1122334455',
  '1234567891', '12345678910', '123456789a', 'a123456789', '1q2w3e4r5t', '1q2w3e4r5t6y', 'q1w2e3r4t5', 'qwertyuiop',
  'qwerty1234', 'qwerty12345', 'qwerty123456', '1qaz2wsx3edc', 'zaq12wsxcde3', 'asdfghjkl1', 'asdfghjkl;', 'zxcvbnm123',
  'password12', 'password123', 'password1234', 'password!1', 'passw0rd12', 'p@ssw0rd12', 'p@ssword123', 'password01',
  'iloveyou12', 'iloveyou123', 'sunshine12', 'princess12', 'football12', 'baseball12', 'basketball', 'superman12',
  'welcome123', 'welcome1234', 'letmein123', 'changeme12', 'changeme123', 'administrator', 'admin12345', 'admin123456',
  'abcdefghij', 'abcd123456', 'abc1234567', 'abcdef1234', 'aaaaaaaaaa', 'qazwsxedcr', 'trustno1234', 'starwars12',
  'michael123', 'jennifer12', 'jordan2323', 'chocolate1', 'butterfly1', 'liverpool1', 'computer12', 'whatever12',
  'dragon1234', 'monkey1234', 'master1234', 'shadow1234', 'mustang123', 'pokemon123', 'blink18222', 'samsung123',
  'q1w2e3r4t5y6', 'qwertyqwerty', 'passwordpassword', 'iloveyouiloveyou', 'myspace123', 'mypassword', 'secret1234',
  'carta12345', 'restaurant', 'restaurant1', 'restaurant123', 'password2024', 'password2025', 'password2026',
]);
