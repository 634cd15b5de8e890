// Package viewtest drives a run file's page (package runview) in a real
// browser, for tests: a headless Chromium over the DevTools protocol on a
// pipe, with the standard library only, and what the page's panel shows
// beside what the run file says it should.
//
//	if err := viewtest.Available(); err != nil {
//		t.Skip(err)
//	}
//	b, err := viewtest.Start(dir, 1500, 860)
//	...
//	defer b.Close()
//	err = b.Open("file://" + page)
//	err = b.Key("ArrowRight")
//	p, err := b.Panel()          // the cursor and the state panel
//	want := viewtest.Want(f, p.Cursor) // what f says they show there
//
// It returns errors and leaves failing to the caller; it never imports
// testing.
package viewtest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Chromium is where Debian's package puts the browser.
const Chromium = "/usr/bin/chromium"

// Available returns nil if the browser is installed, else an error that
// says how to install it.
func Available() error {
	if _, err := os.Stat(Chromium); err != nil {
		return fmt.Errorf("no browser at %s; install Debian's Chromium to run the viewer's browser tests: apt-get install -y --no-install-recommends chromium", Chromium)
	}
	return nil
}

// A Browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe): it reads commands, each a JSON object
// ended by a NUL byte, on its fd 3 and writes replies and events the same
// way on its fd 4. Commands go to one page, through the session attached
// to it.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File // our end of its fd 3
	out     *os.File // our end of its fd 4
	r       *bufio.Reader
	next    int
	session string
	events  []cdpMessage // events read while waiting for a reply
	dir     string
	errors  []string // the exceptions the page's scripts threw, uncaught
}

// A cdpMessage is a reply (ID set) or an event (Method set).
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// ioTimeout bounds each read from the browser, so that a browser that
// hangs fails the test instead of stalling it; it is no speed limit.
const ioTimeout = 60 * time.Second

// Start starts a headless Chromium with a fresh profile in dir and
// a page of width × height pixels, and attaches to that page.
func Start(dir string, width, height int) (*Browser, error) {
	cmdIn, theirIn, err := os.Pipe() // they read commands on fd 3
	if err != nil {
		return nil, err
	}
	theirOut, cmdOut, err := os.Pipe() // they write on fd 4
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(Chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--remote-debugging-pipe", "--user-data-dir="+dir,
		fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdIn, cmdOut}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cmdIn.Close()
	cmdOut.Close()
	b := &Browser{cmd: cmd, in: theirIn, out: theirOut, r: bufio.NewReader(theirOut), dir: dir}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		b.Close()
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		b.Close()
		return nil, err
	}
	b.session = attached.SessionID
	if err := b.call("Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.call("Runtime.enable", nil, nil); err != nil {
		b.Close()
		return nil, err
	}
	return b, b.call("Page.enable", nil, nil)
}

// call sends a command (to the page, once attached) and decodes its
// result into result, if not nil.
func (b *Browser) call(method string, params any, result any) error {
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := b.read()
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			if m.Method != "" {
				b.events = append(b.events, m)
			}
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// read reads one message.
func (b *Browser) read() (cdpMessage, error) {
	var m cdpMessage
	if err := b.out.SetReadDeadline(time.Now().Add(ioTimeout)); err != nil {
		return m, err
	}
	data, err := b.r.ReadBytes(0)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data[:len(data)-1], &m); err != nil {
		return m, err
	}
	if m.Method == "Runtime.exceptionThrown" {
		var e struct {
			Details struct {
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if err := json.Unmarshal(m.Params, &e); err != nil {
			return m, err
		}
		b.errors = append(b.errors, e.Details.Exception.Description)
	}
	return m, nil
}

// waitEvent waits for the page's event called method, dropping those
// before it.
func (b *Browser) waitEvent(method string) error {
	for {
		for i, m := range b.events {
			if m.Method == method {
				b.events = b.events[i+1:]
				return nil
			}
		}
		b.events = b.events[:0]
		m, err := b.read()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// Open loads url and waits for its load event.
func (b *Browser) Open(url string) error {
	b.events = b.events[:0]
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call("Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("opening %s: %s", url, nav.ErrorText)
	}
	return b.waitEvent("Page.loadEventFired")
}

// Eval evaluates a JavaScript expression in the page (awaiting it if it
// is a promise) and decodes its value into v.
func (b *Browser) Eval(expr string, v any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if v == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("%s: no value", expr)
	}
	return json.Unmarshal(r.Result.Value, v)
}

// Key presses and releases a key ("ArrowRight", "f"...), as a person would.
func (b *Browser) Key(key string) error {
	codes := map[string]int{"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35}
	down := map[string]any{"type": "keyDown", "key": key}
	switch c, ok := codes[key]; {
	case ok:
		down["code"], down["windowsVirtualKeyCode"] = key, c
	case key >= "a" && key <= "z":
		down["text"] = key
		down["code"] = "Key" + strings.ToUpper(key)
		down["windowsVirtualKeyCode"] = int(key[0] - 'a' + 'A')
	case key >= "0" && key <= "9":
		down["text"] = key
		down["code"] = "Digit" + key
		down["windowsVirtualKeyCode"] = int(key[0])
	default:
		down["text"] = key
	}
	if err := b.call("Input.dispatchKeyEvent", down, nil); err != nil {
		return err
	}
	up := map[string]any{"type": "keyUp", "key": key}
	for _, k := range []string{"code", "windowsVirtualKeyCode"} {
		if v, ok := down[k]; ok {
			up[k] = v
		}
	}
	return b.call("Input.dispatchKeyEvent", up, nil)
}

// Screenshot returns the page as a PNG.
func (b *Browser) Screenshot() ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close ends the browser: it asks it to close, and kills it if it does
// not within a few seconds.
func (b *Browser) Close() error {
	b.session = ""
	b.call("Browser.close", nil, nil) //nolint:errcheck // it may be gone already
	b.in.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case err := <-done:
		b.out.Close()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil // it was told to close
		}
		return err
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill() //nolint:errcheck
		<-done
		b.out.Close()
		return errors.New("chromium did not close when asked; killed")
	}
}

// Errors returns the exceptions the pages' scripts threw and did not catch,
// as the browser describes them, in order.
func (b *Browser) Errors() []string { return b.errors }
