package emvqr

// CRC16 returns the CRC-16/CCITT-FALSE of data: polynomial 0x1021, initial
// value 0xFFFF, no reflection, no final XOR. CRC16([]byte("123456789")) is
// 0x29B1.
func CRC16(data []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, b := range data {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b]
	}
	return crc
}

var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crcText writes a CRC as four upper-case hexadecimal digits.
func crcText(c uint16) string {
	const hexDigits = "0123456789ABCDEF"
	return string([]byte{hexDigits[c>>12], hexDigits[c>>8&0xF], hexDigits[c>>4&0xF], hexDigits[c&0xF]})
}
