<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <location filename="../app.py" line="120"/>
        <source>Tingji is already running.</source>
        <translation>听记已在运行。</translation>
    </message>
    <message>
        <location filename="../app.py" line="132"/>
        <source>Tingji could not start: {0}

The details are in {1}.</source>
        <translation>听记无法启动：{0}

详细信息在 {1}。</translation>
    </message>
</context>
<context>
    <name>DictationPanel</name>
    <message>
        <location filename="../dictation/panel.py" line="282"/>
        <source>Dictation settings</source>
        <translation>听写设置</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="283"/>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="284"/>
        <source>Nothing dictated yet. What you dictate is kept here, with its recording.</source>
        <translation>还没有听写记录。听写的内容会连同录音保存在这里。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="285"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="285"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="287"/>
        <source>Hotkey</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="287"/>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="287"/>
        <source>Insert by</source>
        <translation>输入方式</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="287"/>
        <source>Microphone</source>
        <translation>麦克风</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="288"/>
        <source>Pre-roll</source>
        <translation>预录</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="288"/>
        <source>Silence ends take</source>
        <translation>静音多久结束</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="288"/>
        <source>Keep recordings</source>
        <translation>保留录音</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="290"/>
        <source>Hold to talk</source>
        <translation>按住说话</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="290"/>
        <source>Press to start, pause to stop</source>
        <translation>按一下开始，停顿即结束</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="291"/>
        <source>Continuous (press to start and stop)</source>
        <translation>连续（按一下开始，再按一下停止）</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="294"/>
        <source>Paste (clipboard restored afterwards)</source>
        <translation>粘贴（之后恢复剪贴板）</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="294"/>
        <source>Type the characters</source>
        <translation>逐字键入</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="509"/>
        <source>{0}. Use the Dictate button instead.</source>
        <translation>{0}。可以改用“开始听写”按钮。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="303"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="473"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="340"/>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="298"/>
        <source>Keep the microphone open between takes</source>
        <translation>两次听写之间保持麦克风打开</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="300"/>
        <source>The first word is never cut, but the system shows the microphone as in use all the time.</source>
        <translation>第一个字不会被截掉，但系统会一直显示麦克风正在使用。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="301"/>
        <source>How long a pause ends a take (press-to-start and continuous modes).</source>
        <translation>停顿多久算一段结束（“按一下开始”和“连续”模式）。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="302"/>
        <source>Audio kept from just before the take starts.</source>
        <translation>保留开始听写前一小段时间的声音。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="304"/>
        <source>How many of the newest takes keep their recording; the text is always kept.</source>
        <translation>最近多少段听写保留录音；文字始终保留。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="307"/>
        <source>Modifiers and one key, e.g. ctrl+alt+space or ctrl+shift+d</source>
        <translation>修饰键加一个键，例如 ctrl+alt+space 或 ctrl+shift+d</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="331"/>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="333"/>
        <source>{0} (not connected)</source>
        <translation>{0}（未连接）</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="341"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="342"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="472"/>
        <source>Dictation starts once the speech model is ready.</source>
        <translation>语音模型就绪后即可听写。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="474"/>
        <source>Listening… speak now</source>
        <translation>正在聆听…请说话</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="478"/>
        <source>The recording of this take was deleted.</source>
        <translation>这段录音已被删除。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="477"/>
        <source>Copied.</source>
        <translation>已复制。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="475"/>
        <source>Transcribing…</source>
        <translation>正在转写…</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="476"/>
        <source>Nothing was said.</source>
        <translation>没有听到说话。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="484"/>
        <source>Hold {0} in any application and speak; let go and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按住 {0} 说话，松开后文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="486"/>
        <source>Press {0} in any application and speak; a pause ends the take and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按一下 {0} 开始说话，停顿即结束，文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="488"/>
        <source>Press {0} to start listening; after each pause what you said is inserted where your cursor is. Press it again to stop.</source>
        <translation>按一下 {0} 开始聆听，每次停顿后说的话会输入到光标所在位置；再按一下停止。</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="497"/>
        <source>Inserted: {0}</source>
        <translation>已输入：{0}</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="505"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../dictation/panel.py" line="505"/>
        <source>Dictate</source>
        <translation>开始听写</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <location filename="../errors.py" line="83"/>
        <source>file not found</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <location filename="../errors.py" line="84"/>
        <source>is a folder, not a file</source>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="85"/>
        <source>is not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="86"/>
        <source>permission denied</source>
        <translation>没有读取权限</translation>
    </message>
    <message>
        <location filename="../errors.py" line="87"/>
        <source>file is empty</source>
        <translation>文件是空的</translation>
    </message>
    <message>
        <location filename="../errors.py" line="88"/>
        <source>not an audio or video file Tingji can read</source>
        <translation>不是听记能读取的音频或视频文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="89"/>
        <source>has no audio track</source>
        <translation>没有音轨</translation>
    </message>
    <message>
        <location filename="../errors.py" line="90"/>
        <source>contains no audio samples</source>
        <translation>不含任何音频数据</translation>
    </message>
    <message>
        <location filename="../errors.py" line="91"/>
        <source>no model loaded</source>
        <translation>没有加载模型</translation>
    </message>
    <message>
        <location filename="../errors.py" line="92"/>
        <source>decoding failed at {0} s: {1}</source>
        <translation>在 {0} 秒处解码失败：{1}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="93"/>
        <source>cannot be read ({0})</source>
        <translation>无法读取（{0}）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="160"/>
        <source> (the text is in the dictation history)</source>
        <translation>（文字已保存在听写历史中）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="164"/>
        <source>global hotkey unavailable: {0}</source>
        <translation>全局快捷键不可用：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="166"/>
        <source>no microphone found (no default input device)</source>
        <translation>找不到麦克风（没有默认输入设备）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="168"/>
        <source>microphone disconnected or stopped working</source>
        <translation>麦克风已断开或停止工作</translation>
    </message>
    <message>
        <location filename="../errors.py" line="169"/>
        <source>microphone {0} not found ({1})</source>
        <translation>找不到麦克风 {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="170"/>
        <source>cannot open microphone {0}: {1}</source>
        <translation>无法打开麦克风 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="171"/>
        <source>{0}: not an input device</source>
        <translation>{0}：不是输入设备</translation>
    </message>
    <message>
        <location filename="../errors.py" line="172"/>
        <source>audio input unavailable: {0}</source>
        <translation>无法使用音频输入：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="174"/>
        <source>cannot send keys to other applications: {0}</source>
        <translation>无法向其他应用发送按键：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="175"/>
        <source>cannot use the clipboard: {0}</source>
        <translation>无法使用剪贴板：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="176"/>
        <source>typing the text failed: {0}</source>
        <translation>键入文字失败：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="178"/>
        <source>the clipboard did not respond (is the app&apos;s window busy?)</source>
        <translation>剪贴板没有响应（应用窗口是否正忙？）</translation>
    </message>
</context>
<context>
    <name>Faults</name>
    <message>
        <location filename="../faults.py" line="88"/>
        <source>Tingji ran into an unexpected problem and may not work as it should:

{0}

The details are in {1}. Restarting Tingji usually helps; please report the problem with that file.</source>
        <translation>听记遇到了意外问题，可能无法正常工作：

{0}

详细信息在 {1}。重新启动听记通常可以解决；请附上该文件报告此问题。</translation>
    </message>
    <message numerus="yes">
        <location filename="../faults.py" line="93"/>
        <source>%n more problem(s) happened while this message was open.</source>
        <translation>
            <numerusform>此消息打开期间又发生了 %n 个问题。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FilesModelBar</name>
    <message>
        <location filename="../files/model_bar.py" line="63"/>
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../files/model_bar.py" line="64"/>
        <source>The languages this model can be told; Auto lets it detect the language. Dictation uses this choice too.</source>
        <translation>此模型可以指定的语言；“自动识别”让模型自己判断语言。听写也使用这一选择。</translation>
    </message>
</context>
<context>
    <name>Languages</name>
    <message>
        <location filename="../languages.py" line="19"/>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../languages.py" line="19"/>
        <source>English</source>
        <translation>英语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="20"/>
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="20"/>
        <source>Japanese</source>
        <translation>日语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="21"/>
        <source>Korean</source>
        <translation>韩语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="21"/>
        <source>Arabic</source>
        <translation>阿拉伯语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="22"/>
        <source>German</source>
        <translation>德语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="22"/>
        <source>French</source>
        <translation>法语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="23"/>
        <source>Spanish</source>
        <translation>西班牙语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="23"/>
        <source>Portuguese</source>
        <translation>葡萄牙语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="24"/>
        <source>Indonesian</source>
        <translation>印尼语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="24"/>
        <source>Italian</source>
        <translation>意大利语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="25"/>
        <source>Russian</source>
        <translation>俄语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="25"/>
        <source>Thai</source>
        <translation>泰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="26"/>
        <source>Vietnamese</source>
        <translation>越南语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="26"/>
        <source>Turkish</source>
        <translation>土耳其语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="27"/>
        <source>Hindi</source>
        <translation>印地语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="27"/>
        <source>Malay</source>
        <translation>马来语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="28"/>
        <source>Dutch</source>
        <translation>荷兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="28"/>
        <source>Swedish</source>
        <translation>瑞典语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="29"/>
        <source>Danish</source>
        <translation>丹麦语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="29"/>
        <source>Finnish</source>
        <translation>芬兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="30"/>
        <source>Polish</source>
        <translation>波兰语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="30"/>
        <source>Czech</source>
        <translation>捷克语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="31"/>
        <source>Filipino</source>
        <translation>菲律宾语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="31"/>
        <source>Persian</source>
        <translation>波斯语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="32"/>
        <source>Greek</source>
        <translation>希腊语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="32"/>
        <source>Hungarian</source>
        <translation>匈牙利语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="33"/>
        <source>Macedonian</source>
        <translation>马其顿语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="33"/>
        <source>Romanian</source>
        <translation>罗马尼亚语</translation>
    </message>
    <message>
        <location filename="../languages.py" line="49"/>
        <source>Auto (detect)</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../languages.py" line="55"/>
        <source>{0} (this model detects instead)</source>
        <translation>{0}（此模型会改为自动识别）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../main_window.py" line="205"/>
        <source>No new audio or video files there.</source>
        <translation>那里没有新的音频或视频文件。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="208"/>
        <source>Audio and video files ({0})</source>
        <translation>音频和视频文件 ({0})</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="209"/>
        <location filename="../main_window.py" line="402"/>
        <source>Add files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="215"/>
        <location filename="../main_window.py" line="403"/>
        <source>Add folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="251"/>
        <source>transcribing {0}</source>
        <translation>正在转写 {0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="254"/>
        <source>dictation: listening</source>
        <translation>听写：正在聆听</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="256"/>
        <source>dictation: transcribing</source>
        <translation>听写：正在转写</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="286"/>
        <source>Queue finished. Done: {0} · Failed: {1}</source>
        <translation>队列已完成。完成：{0} · 失败：{1}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="287"/>
        <location filename="../main_window.py" line="396"/>
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="297"/>
        <source>Loading model {0}…</source>
        <translation>正在加载模型 {0}…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="300"/>
        <source>Ready · {0} on {1}</source>
        <translation>就绪 · {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="302"/>
        <source>Model failed to load: {0}</source>
        <translation>模型加载失败：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="304"/>
        <source>Model {0} unloaded to free memory (idle) · it loads again for the next file or dictation</source>
        <translation>模型 {0} 因空闲已卸载以释放内存 · 下一个文件或听写时会重新加载</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="307"/>
        <source>No speech model installed</source>
        <translation>尚未安装语音模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="314"/>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="317"/>
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Run &lt;code&gt;{0}&lt;/code&gt; in a terminal, or choose a model folder in Settings. Files you add now wait until a model is ready.</source>
        <translation>&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请在终端运行 &lt;code&gt;{0}&lt;/code&gt;，或在“设置”中选择一个模型文件夹。现在添加的文件会排队等待，模型就绪后开始转写。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="320"/>
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="322"/>
        <source>&lt;b&gt;The speech model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载语音模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="326"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="345"/>
        <source>The settings could not be saved: {0}</source>
        <translation>无法保存设置：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="397"/>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="398"/>
        <source>Transcribe audio and video files</source>
        <translation>转写音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="399"/>
        <location filename="../main_window.py" line="474"/>
        <source>Dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="400"/>
        <source>Speak into any application with a hotkey</source>
        <translation>用快捷键在任意应用中语音输入</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="402"/>
        <source>Add audio or video files to the queue (Ctrl+O)</source>
        <translation>把音频或视频文件加入队列 (Ctrl+O)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="403"/>
        <source>Add every audio and video file in a folder</source>
        <translation>添加文件夹中的所有音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="404"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="404"/>
        <source>Cancel the selected files</source>
        <translation>取消所选文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="405"/>
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="405"/>
        <source>Cancel every file that is waiting or transcribing</source>
        <translation>取消所有等待中和转写中的文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="406"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="406"/>
        <source>Model, language, output formats, appearance</source>
        <translation>模型、语言、输出格式、外观</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="455"/>
        <source>Dictation: waiting for the model</source>
        <translation>听写：等待模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="456"/>
        <source>Dictation: press {0}</source>
        <translation>听写：按 {0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="457"/>
        <source>Dictation: hotkey unavailable</source>
        <translation>听写：快捷键不可用</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="458"/>
        <source>Dictation: listening…</source>
        <translation>听写：正在聆听…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="459"/>
        <source>Dictation: transcribing…</source>
        <translation>听写：正在转写…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="467"/>
        <source>Open the dictation page</source>
        <translation>打开听写页面</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="472"/>
        <source>Dictation: {0}</source>
        <translation>听写：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="505"/>
        <source>Tingji is still running</source>
        <translation>听记仍在运行</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="506"/>
        <source>Dictation and the queue keep working in the background. Click the tray icon to open the window; choose Quit in its menu to exit.</source>
        <translation>听写和转写队列会在后台继续工作。点击托盘图标可打开窗口；在托盘菜单中选择“退出”即可退出。</translation>
    </message>
</context>
<context>
    <name>ModelCard</name>
    <message>
        <location filename="../models/facts.py" line="38"/>
        <source>about {0}</source>
        <translation>约 {0}</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="39"/>
        <source>size shown once the download starts</source>
        <translation>开始下载后显示大小</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="43"/>
        <source>Fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="44"/>
        <source>Fast</source>
        <translation>快</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="45"/>
        <source>Moderate</source>
        <translation>中等</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="46"/>
        <source>Slower</source>
        <translation>较慢</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="50"/>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="54"/>
        <source>dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="55"/>
        <source>quick drafts</source>
        <translation>快速草稿</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="56"/>
        <source>transcribing files</source>
        <translation>文件转写</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="57"/>
        <source>names and terms (hotwords)</source>
        <translation>人名和术语（热词）</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="58"/>
        <source>many languages</source>
        <translation>多种语言</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="59"/>
        <source>the best accuracy</source>
        <translation>最高的准确率</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="60"/>
        <source>no conversion needed</source>
        <translation>无需转换</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="69"/>
        <source>{0} languages: {1}, …</source>
        <translation>{0} 种语言：{1} 等</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="76"/>
        <source>Downloaded ready to use.</source>
        <translation>下载后即可使用。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="77"/>
        <source>Downloaded from the publisher and converted on this computer.</source>
        <translation>从发布方下载，在本机转换。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="79"/>
        <source>Converting needs the export extra, which this installation lacks ({0}).</source>
        <translation>转换需要 export 扩展，本安装没有（{0}）。</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="87"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="88"/>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../models/facts.py" line="89"/>
        <source>Best for</source>
        <translation>适合</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="77"/>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="77"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <location filename="../models/manager.py" line="155"/>
        <source>The model catalog could not be read: {0}</source>
        <translation>无法读取模型目录：{0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="178"/>
        <source>Installed · in use</source>
        <translation>已安装 · 正在使用</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="178"/>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="180"/>
        <source>Damaged (verify or remove it)</source>
        <translation>已损坏（请校验或移除）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="182"/>
        <source>Partially downloaded ({0}), resumable</source>
        <translation>已下载一部分（{0}），可续传</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="183"/>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="223"/>
        <source>Resume download</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="224"/>
        <location filename="../models/manager.py" line="464"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="243"/>
        <source>Folder: {0}</source>
        <translation>文件夹：{0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="258"/>
        <source>Choose a model folder to import</source>
        <translation>选择要导入的模型文件夹</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="261"/>
        <source>Import model</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="261"/>
        <source>Install it under the name:</source>
        <translation>安装为以下名称：</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="279"/>
        <source>Delete the model {0} from this computer?</source>
        <translation>要从这台电脑上删除模型 {0} 吗？</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="281"/>
        <source>Tingji is using it now; another installed model will be used instead.</source>
        <translation>听记正在使用它；删除后将改用另一个已安装的模型。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="284"/>
        <source>Delete the partial download of {0} ({1})? The next download starts from the beginning.</source>
        <translation>要删除 {0} 已下载的部分（{1}）吗？下次下载将从头开始。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="289"/>
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="316"/>
        <source>Tingji now uses {0}.</source>
        <translation>听记现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="326"/>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="342"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="346"/>
        <source>Verifying files</source>
        <translation>正在校验文件</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="348"/>
        <source>Extracting</source>
        <translation>正在解压</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="352"/>
        <source>Copying files</source>
        <translation>正在复制文件</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="354"/>
        <source>Converting</source>
        <translation>正在转换</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="356"/>
        <source>Converting: {0}</source>
        <translation>正在转换：{0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="357"/>
        <source>Downloading {0}</source>
        <translation>正在下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="368"/>
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="371"/>
        <source>{0}/s</source>
        <translation>{0}/秒</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="374"/>
        <source>{0} left</source>
        <translation>剩余 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="380"/>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="382"/>
        <source>{0} min {1} s</source>
        <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="383"/>
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="397"/>
        <source>Installed {0}.</source>
        <translation>已安装 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="399"/>
        <source>{0}: not checked (no published SHA-256); pinned {1} now that the model verified. Later downloads must match it.</source>
        <translation>{0}：未校验（目录没有公布 SHA-256）；模型校验通过后已固定为 {1}。以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="402"/>
        <source>{0}: all {1} files match their SHA-256.</source>
        <translation>{0}：全部 {1} 个文件与其 SHA-256 一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="407"/>
        <source>Removed {0}.</source>
        <translation>已移除 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="409"/>
        <source>Deleted the partial download of {0}.</source>
        <translation>已删除 {0} 已下载的部分。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="416"/>
        <source>{0} failed: {1}</source>
        <translation>{0}失败：{1}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="421"/>
        <source>Download of {0} cancelled; downloading it again resumes where it stopped.</source>
        <translation>已取消下载 {0}；再次下载时将从中断处继续。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="424"/>
        <source>{0} cancelled.</source>
        <translation>{0}已取消。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="428"/>
        <source>Download of {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="428"/>
        <source>Import of {0}</source>
        <translation>导入 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="429"/>
        <source>Verification of {0}</source>
        <translation>校验 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="429"/>
        <source>Removal of {0}</source>
        <translation>移除 {0}</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="430"/>
        <source>Deleting the partial download of {0}</source>
        <translation>删除 {0} 已下载的部分</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="458"/>
        <source>Speech models</source>
        <translation>语音模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="459"/>
        <source>Models Tingji can use. Downloads resume where they stopped; a file is checked against its SHA-256 where one is published or pinned (see the Hashes column), and every model is verified before it is installed.</source>
        <translation>Tingji 可用的模型。下载会从中断处继续；公布了或已固定 SHA-256 的文件会据此校验（见“哈希”列），每个模型在安装前都会经过校验。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="462"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="462"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="462"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="464"/>
        <source>Import folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="465"/>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="465"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="466"/>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="467"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="470"/>
        <source>Check every file of the model against its SHA-256</source>
        <translation>用 SHA-256 校验模型的每个文件</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="473"/>
        <source>Install a copy of a Tingji model folder, or of a Fun-ASR-Nano GGUF release folder (CapsWriter-Offline)</source>
        <translation>安装听记模型文件夹的副本，或 Fun-ASR-Nano GGUF 发布文件夹（CapsWriter-Offline）的副本</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="475"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="300"/>
        <source>Forget the {0} SHA-256 hashes pinned by the first download of {1}? The next download cannot be checked against them; it pins new ones once the model verifies.</source>
        <translation>要忘记 {1} 首次下载时固定的 {0} 个 SHA-256 哈希吗？下次下载将无法用它们校验；模型校验通过后会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="303"/>
        <location filename="../models/manager.py" line="466"/>
        <source>Forget pinned hashes</source>
        <translation>忘记固定的哈希</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="411"/>
        <source>Forgot {0} pinned SHA-256 hashes of {1}; its next download pins new ones.</source>
        <translation>已忘记 {1} 的 {0} 个固定 SHA-256 哈希；下次下载时会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="431"/>
        <source>Forgetting the pinned hashes of {0}</source>
        <translation>忘记 {0} 的固定哈希</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="471"/>
        <source>Forget the SHA-256 hashes pinned by this model&apos;s first download (after a legitimate update of the model)</source>
        <translation>忘记此模型首次下载时固定的 SHA-256 哈希（在模型正当更新之后使用）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="190"/>
        <source>None published</source>
        <translation>未公布</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="192"/>
        <source>Pinned by you</source>
        <translation>由你固定</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="193"/>
        <source>Published</source>
        <translation>已公布</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="199"/>
        <source>The catalog publishes no SHA-256 for {0} of its {1} files: downloading this model cannot check them. Their hashes are pinned once the model verifies, and later downloads must match.</source>
        <translation>目录没有公布其 {1} 个文件中 {0} 个的 SHA-256：下载此模型时无法校验这些文件。模型校验通过后会固定它们的哈希，以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="203"/>
        <source>Downloads are checked against SHA-256 hashes pinned by your first download, not published by the catalog.</source>
        <translation>下载会用你首次下载时固定的 SHA-256 哈希校验，而不是目录公布的哈希。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="205"/>
        <source>Downloads are checked against the SHA-256 hashes the catalog publishes.</source>
        <translation>下载会用目录公布的 SHA-256 哈希校验。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="463"/>
        <source>Hashes</source>
        <translation>哈希</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="350"/>
        <source>Loading the model to check it</source>
        <translation>正在加载模型以检查其能否使用</translation>
    </message>
</context>
<context>
    <name>ModelPickerDialog</name>
    <message>
        <location filename="../models/picker.py" line="153"/>
        <source>The model catalog could not be read: {0}</source>
        <translation>无法读取模型目录：{0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="184"/>
        <source>Choose a model folder to import</source>
        <translation>选择要导入的模型文件夹</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="198"/>
        <source>Installing {0}…</source>
        <translation>正在安装 {0}…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="199"/>
        <source>Importing {0} as {1}…</source>
        <translation>正在把 {0} 导入为 {1}…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="221"/>
        <source>&lt;b&gt;{0} is installed.&lt;/b&gt; Tingji is loading it and is then ready: drop audio or video files on the window, or dictate with the hotkey. Settings chooses a model for files and another for dictation.</source>
        <translation>&lt;b&gt;{0} 已安装。&lt;/b&gt;听记正在加载它，加载完即可使用：把音频或视频文件拖到窗口上，或用快捷键听写。在“设置”中可以为文件转写和听写分别选择模型。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="228"/>
        <source>Download of {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="229"/>
        <source>Import of {0}</source>
        <translation>导入 {0}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="230"/>
        <source>{0} failed: {1}</source>
        <translation>{0} 失败：{1}</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="234"/>
        <source>Download cancelled; downloading again resumes where it stopped.</source>
        <translation>下载已取消；再次下载会从中断处继续。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="235"/>
        <source>Import cancelled.</source>
        <translation>导入已取消。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="284"/>
        <source>Choose a speech model</source>
        <translation>选择语音模型</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="287"/>
        <source>Tingji turns speech into text on this computer, with a speech model you download once. Pick one to start; you can add others later in Settings and use one for files and another for dictation.</source>
        <translation>听记在本机把语音转成文字，所用的语音模型只需下载一次。先选一个开始使用；以后可以在“设置”中添加其他模型，文件转写和听写可以各用一个。</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="289"/>
        <source>Import a folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="290"/>
        <source>A Tingji model folder, a pre-converted release, or an official checkpoint folder you downloaded yourself</source>
        <translation>听记模型文件夹、已转换好的发布包，或你自己下载的官方检查点文件夹</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="292"/>
        <source>Start using Tingji</source>
        <translation>开始使用听记</translation>
    </message>
    <message>
        <location filename="../models/picker.py" line="292"/>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
</context>
<context>
    <name>ModelUse</name>
    <message>
        <location filename="../main_window.py" line="352"/>
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Choose one to download, or import a model folder you have. Files you add now wait until a model is ready.</source>
        <translation>&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请选择一个下载，或导入已有的模型文件夹。现在添加的文件会等到模型就绪后再转写。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="355"/>
        <source>Choose a model…</source>
        <translation>选择模型…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="361"/>
        <source>&lt;b&gt;The dictation model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载听写模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="59"/>
        <source>A fast model (SenseVoice-Small) answers dictation sooner; a second model takes memory of its own</source>
        <translation>快速模型（SenseVoice-Small）听写响应更快；另用一个模型会额外占用内存</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="82"/>
        <source>Model for files:</source>
        <translation>文件转写模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="83"/>
        <source>Model for dictation:</source>
        <translation>听写模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="149"/>
        <source>Same as for files</source>
        <translation>与文件转写相同</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="180"/>
        <source>Files and dictation</source>
        <translation>文件转写和听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="182"/>
        <source>Files</source>
        <translation>文件转写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="184"/>
        <source>Dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="333"/>
        <source>Dictation now uses {0}.</source>
        <translation>听写现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="338"/>
        <source>Files now use {0}.</source>
        <translation>文件转写现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="447"/>
        <source>Used for</source>
        <translation>用途</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="448"/>
        <source>Use for files</source>
        <translation>用于文件转写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="449"/>
        <source>Use for dictation</source>
        <translation>用于听写</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="461"/>
        <source>Install a copy of a Tingji model folder or of a Fun-ASR-Nano GGUF release folder (CapsWriter-Offline), or convert an official checkpoint folder (Fun-ASR-Nano, SenseVoice-Small, Qwen3-ASR)</source>
        <translation>安装听记模型文件夹或 Fun-ASR-Nano GGUF 发布包文件夹（CapsWriter-Offline）的副本，或转换官方检查点文件夹（Fun-ASR-Nano、SenseVoice-Small、Qwen3-ASR）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="465"/>
        <source>Transcribe files (the queue) with this model</source>
        <translation>用此模型转写文件（队列）</translation>
    </message>
    <message>
        <location filename="../models/manager.py" line="467"/>
        <source>Dictate with this model; a fast one answers sooner</source>
        <translation>用此模型听写；快速模型响应更快</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="33"/>
        <source>{0} (loading…)</source>
        <translation>{0}（加载中…）</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="35"/>
        <source>{0} (unloaded while idle)</source>
        <translation>{0}（空闲时已卸载）</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="37"/>
        <source>{0} (failed to load)</source>
        <translation>{0}（加载失败）</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="38"/>
        <location filename="../models/uses.py" line="59"/>
        <source>no model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="43"/>
        <source>Files: {0} · Dictation: {1}</source>
        <translation>文件转写：{0} · 听写：{1}</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="53"/>
        <source>Dictation model: none installed yet.</source>
        <translation>听写模型：尚未安装。</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="55"/>
        <source>Dictation model: &lt;b&gt;{0}&lt;/b&gt;, the same as for files.</source>
        <translation>听写模型：&lt;b&gt;{0}&lt;/b&gt;，与文件转写相同。</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="58"/>
        <source>Dictation model: &lt;b&gt;{0}&lt;/b&gt; (files use {1}).</source>
        <translation>听写模型：&lt;b&gt;{0}&lt;/b&gt;（文件转写使用 {1}）。</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="60"/>
        <source>Change…</source>
        <translation>更改…</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="68"/>
        <source>Model: none installed yet</source>
        <translation>模型：尚未安装</translation>
    </message>
    <message>
        <location filename="../models/uses.py" line="69"/>
        <source>Model: &lt;b&gt;{0}&lt;/b&gt;</source>
        <translation>模型：&lt;b&gt;{0}&lt;/b&gt;</translation>
    </message>
</context>
<context>
    <name>QueueController</name>
    <message>
        <location filename="../files/controller.py" line="344"/>
        <source>Loading the model again for {0}…</source>
        <translation>正在为 {0} 重新加载模型…</translation>
    </message>
    <message>
        <location filename="../files/controller.py" line="408"/>
        <source>{0} was not exported: {1}</source>
        <translation>{0} 未能导出：{1}</translation>
    </message>
    <message>
        <location filename="../files/controller.py" line="414"/>
        <source>Saved {0} beside {1}</source>
        <translation>已在 {1} 旁保存 {0}</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../files/queue_model.py" line="160"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="160"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="160"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="160"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="183"/>
        <source>Only part of this file was transcribed: {0}</source>
        <translation>此文件只转写了一部分：{0}</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="185"/>
        <source>Saved as {0}</source>
        <translation>已保存为 {0}</translation>
    </message>
</context>
<context>
    <name>QueuePanel</name>
    <message>
        <location filename="../files/queue_view.py" line="182"/>
        <source>Files: {0} · Done: {1}</source>
        <translation>文件：{0} · 完成：{1}</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="184"/>
        <source>Failed: {0}</source>
        <translation>失败：{0}</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="203"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="205"/>
        <source>Transcribe again</source>
        <translation>重新转写</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="207"/>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="209"/>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="212"/>
        <source>Open containing folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="215"/>
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="221"/>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="222"/>
        <source>Move the selected file up the queue</source>
        <translation>把所选文件在队列中上移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="223"/>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="224"/>
        <source>Move the selected file down the queue</source>
        <translation>把所选文件在队列中下移</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="225"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="226"/>
        <source>Remove the selected files from the list (Del)</source>
        <translation>从列表中移除所选文件 (Del)</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="227"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="228"/>
        <source>Transcribe the selected files again</source>
        <translation>重新转写所选文件</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="229"/>
        <source>Drop audio or video files here</source>
        <translation>把音频或视频文件拖到这里</translation>
    </message>
    <message>
        <location filename="../files/queue_view.py" line="230"/>
        <source>or folders, or use Add files / Add folder above</source>
        <translation>也可以拖入文件夹，或使用上方的“添加文件”/“添加文件夹”</translation>
    </message>
</context>
<context>
    <name>ScanStatus</name>
    <message>
        <location filename="../files/scan_status.py" line="49"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../files/scan_status.py" line="50"/>
        <source>Stop looking; nothing from this folder is added</source>
        <translation>停止查找；不添加这个文件夹中的任何文件</translation>
    </message>
    <message>
        <location filename="../files/scan_status.py" line="66"/>
        <source>Looking for audio and video files… {0} found</source>
        <translation>正在查找音频和视频文件… 已找到 {0} 个</translation>
    </message>
</context>
<context>
    <name>SegmentModel</name>
    <message>
        <location filename="../files/transcript_view.py" line="68"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="68"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../settings_dialog.py" line="33"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="41"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="42"/>
        <source>Use a Tingji model folder anywhere on this computer</source>
        <translation>使用本机任意位置的听记模型文件夹</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="44"/>
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="51"/>
        <source>Automatic (GPU when available)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="52"/>
        <source>DirectML (Windows GPU)</source>
        <translation>DirectML（Windows GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="53"/>
        <source>CUDA (NVIDIA GPU)</source>
        <translation>CUDA（NVIDIA GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="53"/>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56"/>
        <source>Detect automatically</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56"/>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57"/>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57"/>
        <source>Japanese</source>
        <translation>日文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="58"/>
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="58"/>
        <source>Korean</source>
        <translation>韩文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="61"/>
        <source>Names and terms to favour, one per line</source>
        <translation>需要优先识别的人名和术语，每行一个</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="67"/>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="68"/>
        <source> min idle</source>
        <translation> 分钟后</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="69"/>
        <source>Free the model&apos;s memory when Tingji has had nothing to transcribe for this long; the next file or dictation loads it again</source>
        <translation>听记在这么长时间内没有转写任务时释放模型占用的内存；下一个文件或听写会重新加载它</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="72"/>
        <source>Speech recognition</source>
        <translation>语音识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="74"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="75"/>
        <source>Run on:</source>
        <translation>运行设备：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="76"/>
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="77"/>
        <source>Hotwords:</source>
        <translation>热词：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="81"/>
        <source>Unload the model after:</source>
        <translation>空闲时卸载模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="84"/>
        <source>Save transcripts next to each source file when done</source>
        <translation>完成后自动把转写结果保存在源文件旁边</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="90"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="93"/>
        <source>Formats:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="97"/>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="100"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="100"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="101"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="103"/>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="105"/>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="106"/>
        <source>Appearance:</source>
        <translation>外观：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="107"/>
        <source>Language and appearance change at once.</source>
        <translation>语言和外观会立即生效。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="134"/>
        <source>Automatic (first installed model)</source>
        <translation>自动（第一个已安装的模型）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="137"/>
        <source>{0} (incomplete)</source>
        <translation>{0}（不完整）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="176"/>
        <source>Choose a Tingji model folder</source>
        <translation>选择听记模型文件夹</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <location filename="../files/queue_model.py" line="44"/>
        <source>Done with warnings</source>
        <translation>完成（有警告）</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="46"/>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="47"/>
        <source>Transcribing</source>
        <translation>转写中</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="48"/>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="49"/>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../files/queue_model.py" line="50"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>StorageBanner</name>
    <message>
        <location filename="../storage_banner.py" line="50"/>
        <source>&lt;b&gt;Tingji cannot write to its queue database&lt;/b&gt; ({0}). The queue goes on.</source>
        <translation>&lt;b&gt;听记无法写入队列数据库&lt;/b&gt;（{0}）。队列会继续处理。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="52"/>
        <location filename="../storage_banner.py" line="60"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message numerus="yes">
        <location filename="../storage_banner.py" line="54"/>
        <source>%n finished transcript(s) are kept only in memory until you save them.</source>
        <translation>
            <numerusform>%n 份已完成的转写稿只保存在内存中，请尽快保存。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="56"/>
        <source>Save transcripts…</source>
        <translation>保存转写稿…</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="67"/>
        <source>The queue database was written by a newer version of Tingji. It was moved to {1}, and Tingji started with an empty one.</source>
        <translation>队列数据库由更新版本的听记写入。它已被移到 {1}，听记已使用一个新的空数据库启动。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="69"/>
        <source>The dictation history was written by a newer version of Tingji. It was moved to {1}, and the history starts empty.</source>
        <translation>听写历史由更新版本的听记写入。它已被移到 {1}，历史记录从空开始。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="72"/>
        <source>The queue database could not be read ({0}). It was moved to {1}, and Tingji started with an empty one.</source>
        <translation>无法读取队列数据库（{0}）。它已被移到 {1}，听记已使用一个新的空数据库启动。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="74"/>
        <source>The dictation history could not be read ({0}). It was moved to {1}, and the history starts empty.</source>
        <translation>无法读取听写历史（{0}）。它已被移到 {1}，历史记录从空开始。</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="83"/>
        <source>Save the transcripts to a folder</source>
        <translation>将转写稿保存到文件夹</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="92"/>
        <source>Save the transcripts</source>
        <translation>保存转写稿</translation>
    </message>
    <message>
        <location filename="../storage_banner.py" line="93"/>
        <source>The transcripts could not be saved in {0}: {1}</source>
        <translation>无法将转写稿保存到 {0}：{1}</translation>
    </message>
    <message numerus="yes">
        <location filename="../storage_banner.py" line="95"/>
        <source>Saved %n file(s) in {0}</source>
        <translation>
            <numerusform>已在 {0} 中保存 %n 个文件</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TranscriptPanel</name>
    <message>
        <location filename="../files/transcript_view.py" line="188"/>
        <source>Cannot play this file: {0}</source>
        <translation>无法播放此文件：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="224"/>
        <source>Transcript</source>
        <translation>转写结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="230"/>
        <source>⚠ Only part of this file was transcribed: {0}</source>
        <translation>⚠ 此文件只转写了一部分：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="232"/>
        <source>⚠ Not in Tingji&apos;s queue database (it could not be written); the files saved beside the source have this transcript.</source>
        <translation>⚠ 未写入听记的队列数据库（无法写入）；保存在源文件旁的文件中有这份转写稿。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="235"/>
        <source>⚠ Not saved: Tingji could not write this transcript to its queue database. Export it to keep it.</source>
        <translation>⚠ 未保存：听记无法将此转写稿写入队列数据库。请导出以保留它。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="240"/>
        <source>Saved beside the source as {0}</source>
        <translation>已保存在源文件旁：{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="248"/>
        <source>Select a file in the queue to see its transcript.</source>
        <translation>在队列中选择一个文件，即可查看转写结果。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="250"/>
        <source>Waiting to be transcribed.</source>
        <translation>等待转写。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="252"/>
        <source>Transcribing…
Text appears here as it is recognised.</source>
        <translation>正在转写…
识别出的文字会陆续显示在这里。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="254"/>
        <source>This file could not be transcribed:
{0}</source>
        <translation>无法转写此文件：
{0}</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="257"/>
        <source>Cancelled before any text was recognised.</source>
        <translation>在识别出任何文字之前已取消。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="259"/>
        <source>No speech was found in this file.</source>
        <translation>此文件中没有发现语音。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="275"/>
        <source>transcribed in {0:.1f} s</source>
        <translation>用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="277"/>
        <source>cancelled: partial transcript</source>
        <translation>已取消：部分结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="281"/>
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="282"/>
        <source>Copy the whole transcript to the clipboard</source>
        <translation>把全部转写结果复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="283"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="284"/>
        <source>Save the transcript as TXT, SRT, VTT or JSON</source>
        <translation>把转写结果保存为 TXT、SRT、VTT 或 JSON</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="285"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="307"/>
        <source>Transcript copied to the clipboard.</source>
        <translation>转写结果已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="322"/>
        <source>Plain text (*.txt)</source>
        <translation>纯文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="322"/>
        <source>SubRip subtitles (*.srt)</source>
        <translation>SubRip 字幕 (*.srt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="323"/>
        <source>WebVTT subtitles (*.vtt)</source>
        <translation>WebVTT 字幕 (*.vtt)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="323"/>
        <source>JSON with timings (*.json)</source>
        <translation>带时间信息的 JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="324"/>
        <source>Export transcript</source>
        <translation>导出转写结果</translation>
    </message>
    <message>
        <location filename="../files/transcript_view.py" line="335"/>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../tray.py" line="44"/>
        <source>Show Tingji</source>
        <translation>显示听记</translation>
    </message>
    <message>
        <location filename="../tray.py" line="45"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../tray.py" line="46"/>
        <location filename="../tray.py" line="49"/>
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
</context>
</TS>
