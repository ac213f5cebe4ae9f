<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <location filename="../app.py" line="84" />
        <source>Tingji is already running.</source>
        <translation>听记已在运行。</translation>
    </message>
</context>
<context>
    <name>DictationPanel</name>
    <message>
        <location filename="../dictation_panel.py" line="269" />
        <source>Dictation settings</source>
        <translation>听写设置</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="270" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="270" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="272" />
        <source>Hotkey</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="272" />
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="272" />
        <source>Insert by</source>
        <translation>输入方式</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="272" />
        <source>Microphone</source>
        <translation>麦克风</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="273" />
        <source>Pre-roll</source>
        <translation>预录</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="273" />
        <source>Silence ends take</source>
        <translation>静音多久结束</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="273" />
        <source>Keep recordings</source>
        <translation>保留录音</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="275" />
        <source>Hold to talk</source>
        <translation>按住说话</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="275" />
        <source>Press to start, pause to stop</source>
        <translation>按一下开始，停顿即结束</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="276" />
        <source>Continuous (press to start and stop)</source>
        <translation>连续（按一下开始，再按一下停止）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="279" />
        <source>Paste (clipboard restored afterwards)</source>
        <translation>粘贴（之后恢复剪贴板）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="279" />
        <source>Type the characters</source>
        <translation>逐字键入</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="282" />
        <source>Keep open between takes (no cut first word; mic shows as in use)</source>
        <translation>两次听写之间保持麦克风打开（不丢第一个字；麦克风会显示为使用中）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="283" />
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="287" />
        <location filename="../dictation_panel.py" line="396" />
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="300" />
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="305" />
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="309" />
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="321" />
        <source>The recording of this take was deleted.</source>
        <translation>这段录音已被删除。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="335" />
        <source>Copied.</source>
        <translation>已复制。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="396" />
        <source>Listening…</source>
        <translation>正在聆听…</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="397" />
        <source>Transcribing…</source>
        <translation>正在转写…</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="403" />
        <source>Nothing was said.</source>
        <translation>没有听到说话。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="410" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="410" />
        <source>Dictate</source>
        <translation>听写</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../main_window.py" line="124" />
        <source>No new audio or video files there.</source>
        <translation>那里没有新的音频或视频文件。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="127" />
        <source>Audio and video files ({0})</source>
        <translation>音频和视频文件 ({0})</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="128" />
        <location filename="../main_window.py" line="278" />
        <source>Add files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="134" />
        <location filename="../main_window.py" line="279" />
        <source>Add folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="166" />
        <source>transcribing {0}</source>
        <translation>正在转写 {0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="194" />
        <source>Queue finished. Done: {0} · Failed: {1}</source>
        <translation>队列已完成。完成：{0} · 失败：{1}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="195" />
        <location filename="../main_window.py" line="276" />
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="205" />
        <source>Loading model {0}…</source>
        <translation>正在加载模型 {0}…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="208" />
        <source>Ready · {0} on {1}</source>
        <translation>就绪 · {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="210" />
        <source>Model failed to load: {0}</source>
        <translation>模型加载失败：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="212" />
        <source>No speech model installed</source>
        <translation>尚未安装语音模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="219" />
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="222" />
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Run &lt;code&gt;{0}&lt;/code&gt; in a terminal, or choose a model folder in Settings. Files you add now wait until a model is ready.</source>
        <translation>&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请在终端运行 &lt;code&gt;{0}&lt;/code&gt;，或在“设置”中选择一个模型文件夹。现在添加的文件会排队等待，模型就绪后开始转写。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="224" />
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="226" />
        <source>&lt;b&gt;The speech model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载语音模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="230" />
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="262" />
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="263" />
        <source>To install the recommended model, run this in a terminal:

    {0}

Then choose it in Settings, or restart Tingji.</source>
        <translation>要安装推荐的模型，请在终端运行：

    {0}

然后在“设置”中选择它，或重新启动听记。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="278" />
        <source>Add audio or video files to the queue (Ctrl+O)</source>
        <translation>把音频或视频文件加入队列 (Ctrl+O)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="279" />
        <source>Add every audio and video file in a folder</source>
        <translation>添加文件夹中的所有音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="280" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="280" />
        <source>Cancel the selected files</source>
        <translation>取消所选文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="281" />
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="281" />
        <source>Cancel every file that is waiting or transcribing</source>
        <translation>取消所有等待中和转写中的文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="282" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="282" />
        <source>Model, language, output formats, appearance</source>
        <translation>模型、语言、输出格式、外观</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../queue_model.py" line="155" />
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="155" />
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="155" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="155" />
        <source>Progress</source>
        <translation>进度</translation>
    </message>
</context>
<context>
    <name>QueuePanel</name>
    <message>
        <location filename="../queue_view.py" line="175" />
        <source>Files: {0} · Done: {1}</source>
        <translation>文件：{0} · 完成：{1}</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="177" />
        <source>Failed: {0}</source>
        <translation>失败：{0}</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="196" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="198" />
        <source>Transcribe again</source>
        <translation>重新转写</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="200" />
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="202" />
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="205" />
        <source>Open containing folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="208" />
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="214" />
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="215" />
        <source>Move the selected file up the queue</source>
        <translation>把所选文件在队列中上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="216" />
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="217" />
        <source>Move the selected file down the queue</source>
        <translation>把所选文件在队列中下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="218" />
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="219" />
        <source>Remove the selected files from the list (Del)</source>
        <translation>从列表中移除所选文件 (Del)</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="220" />
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="221" />
        <source>Transcribe the selected files again</source>
        <translation>重新转写所选文件</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="222" />
        <source>Drop audio or video files here</source>
        <translation>把音频或视频文件拖到这里</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="223" />
        <source>or folders, or use Add files / Add folder above</source>
        <translation>也可以拖入文件夹，或使用上方的“添加文件”/“添加文件夹”</translation>
    </message>
</context>
<context>
    <name>SegmentModel</name>
    <message>
        <location filename="../transcript_view.py" line="67" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="67" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../settings_dialog.py" line="32" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="40" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="41" />
        <source>Use a Tingji model folder anywhere on this computer</source>
        <translation>使用本机任意位置的听记模型文件夹</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="43" />
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="50" />
        <source>Automatic (GPU when available)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="51" />
        <source>DirectML (Windows GPU)</source>
        <translation>DirectML（Windows GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="52" />
        <source>CUDA (NVIDIA GPU)</source>
        <translation>CUDA（NVIDIA GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="52" />
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="55" />
        <source>Detect automatically</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="55" />
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56" />
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56" />
        <source>Japanese</source>
        <translation>日文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57" />
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57" />
        <source>Korean</source>
        <translation>韩文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="60" />
        <source>Names and terms to favour, one per line</source>
        <translation>需要优先识别的人名和术语，每行一个</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="64" />
        <source>Speech recognition</source>
        <translation>语音识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="66" />
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="67" />
        <source>Run on:</source>
        <translation>运行设备：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="68" />
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="69" />
        <source>Hotwords:</source>
        <translation>热词：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="72" />
        <source>Save transcripts next to each source file when done</source>
        <translation>完成后自动把转写结果保存在源文件旁边</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="78" />
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="81" />
        <source>Formats:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="85" />
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="88" />
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="88" />
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="89" />
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="91" />
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="93" />
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="94" />
        <source>Appearance:</source>
        <translation>外观：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="95" />
        <source>Language and appearance change at once.</source>
        <translation>语言和外观会立即生效。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="122" />
        <source>Automatic (first installed model)</source>
        <translation>自动（第一个已安装的模型）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="125" />
        <source>{0} (incomplete)</source>
        <translation>{0}（不完整）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="158" />
        <source>Choose a Tingji model folder</source>
        <translation>选择听记模型文件夹</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <location filename="../queue_model.py" line="41" />
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="42" />
        <source>Transcribing</source>
        <translation>转写中</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="43" />
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="44" />
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="45" />
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>TranscriptPanel</name>
    <message>
        <location filename="../transcript_view.py" line="172" />
        <source>Cannot play this file: {0}</source>
        <translation>无法播放此文件：{0}</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="206" />
        <source>Transcript</source>
        <translation>转写结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="215" />
        <source>Select a file in the queue to see its transcript.</source>
        <translation>在队列中选择一个文件，即可查看转写结果。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="217" />
        <source>Waiting to be transcribed.</source>
        <translation>等待转写。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="219" />
        <source>Transcribing…
Text appears here as it is recognised.</source>
        <translation>正在转写…
识别出的文字会陆续显示在这里。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="221" />
        <source>This file could not be transcribed:
{0}</source>
        <translation>无法转写此文件：
{0}</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="223" />
        <source>Cancelled before any text was recognised.</source>
        <translation>在识别出任何文字之前已取消。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="225" />
        <source>No speech was found in this file.</source>
        <translation>此文件中没有发现语音。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="241" />
        <source>transcribed in {0:.1f} s</source>
        <translation>用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="243" />
        <source>cancelled: partial transcript</source>
        <translation>已取消：部分结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="247" />
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="248" />
        <source>Copy the whole transcript to the clipboard</source>
        <translation>把全部转写结果复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="249" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="250" />
        <source>Save the transcript as TXT, SRT, VTT or JSON</source>
        <translation>把转写结果保存为 TXT、SRT、VTT 或 JSON</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="251" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="271" />
        <source>Transcript copied to the clipboard.</source>
        <translation>转写结果已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="286" />
        <source>Plain text (*.txt)</source>
        <translation>纯文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="286" />
        <source>SubRip subtitles (*.srt)</source>
        <translation>SubRip 字幕 (*.srt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="287" />
        <source>WebVTT subtitles (*.vtt)</source>
        <translation>WebVTT 字幕 (*.vtt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="287" />
        <source>JSON with timings (*.json)</source>
        <translation>带时间信息的 JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="288" />
        <source>Export transcript</source>
        <translation>导出转写结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="299" />
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../tray.py" line="38" />
        <source>Show Tingji</source>
        <translation>显示听记</translation>
    </message>
    <message>
        <location filename="../tray.py" line="39" />
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../tray.py" line="40" />
        <location filename="../tray.py" line="43" />
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
</context>
</TS>