package launch

// FormEncode encodes s as the WHATWG URLSearchParams serializer does
// (application/x-www-form-urlencoded): ASCII letters, digits and "*-._"
// as is, a space as "+", every other byte as %XX (upper-case hex). The
// SGLang cookbook pages' hash and the recipes.vllm.ai query are written
// this way (new URLSearchParams(…).toString()).
func FormEncode(s string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}
