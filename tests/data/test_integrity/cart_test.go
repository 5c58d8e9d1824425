package cart

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkTotal(t *testing.T, c *Cart, want int) {
	t.Helper()
	if got := c.TotalCents(); got != want {
		t.Errorf("TotalCents() = %d, want %d", got, want)
	}
}

func TestEmptyCart(t *testing.T) {
	c := New()
	checkTotal(t, c, 0)
}

func TestAddItems(t *testing.T) {
	c := New()
	c.Add(Item{Name: "book", Cents: 4000})
	if len(c.Items()) != 1 {
		t.Fatalf("Items() has %d entries, want 1", len(c.Items()))
	}
	checkTotal(t, c, 4000)
}

func TestApplyCode(t *testing.T) {
	if testing.Short() {
		t.Skip("slow in -short mode")
	}
	cases := []struct {
		code string
		want int
	}{
		{"SAVE10", 3600},
		{"SAVE20", 3200},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			c := New()
			c.Add(Item{Name: "book", Cents: 4000})
			require.NoError(t, c.Apply(tc.code))
			assert.Equal(t, tc.want, c.TotalCents())
		})
	}
}

func TestUnknownCode(t *testing.T) {
	c := New()
	err := c.Apply("NOPE")
	assert.ErrorIs(t, err, ErrUnknownCode)
}
